import { defineRoute } from "../../http/route";
import { z } from "@hono/zod-openapi";
import { errorResponses, okData, pathId, security, type Router } from "../../openapi";
import { requireDocument } from "../../auth/access";
import { ApiError, notFound } from "../../errors";
import { audioRecord, findAudio, requireSigningSecret } from "../../services/media/audio";
import { AudioRecordSchema } from "../../schemas/content";

const route = defineRoute({
  operationId: "getAudio",
  method: "get",
  path: "/media/audio/{audioId}",
  tags: ["Media"],
  summary: "Issue a fresh audio record (a new signed URL, valid 6 hours)",
  description: "Read access to the audio's document.",
  security,
  request: { params: z.object({ audioId: pathId("audioId") }) },
  responses: { ...okData(AudioRecordSchema), ...errorResponses("ServiceUnavailableError") },
});

export function registerGetAudio(app: Router) {
  app.openapi(route, async (c) => {
    const db = c.get("db");
    const { audioId } = c.req.valid("param");
    const secret = requireSigningSecret(c.env.SIGNING_SECRET);
    const audio = await findAudio(db, audioId);
    if (!audio) throw notFound("Audio");
    await requireDocument(db, c.get("user"), audio.documentId, "read").catch((err) => {
      throw err instanceof ApiError && err.code === "NotFoundError" ? notFound("Audio") : err;
    });
    return c.json({ data: await audioRecord(new URL(c.req.url).origin, audio, secret) }, 200);
  });
}
