import { z } from "@hono/zod-openapi";
import { ctxOf, defineRoute } from "../../http/route";
import { errorResponses, okData, pathId, type Router } from "../../openapi";
import { getAudio } from "../../services/media/audio";
import { AudioRecordSchema } from "../../schemas/content";

const route = defineRoute({
  operationId: "getAudio",
  auth: "batched",
  method: "get",
  path: "/media/audio/{audioId}",
  tags: ["Media"],
  summary: "Issue a fresh audio record (a new signed URL, valid 6 hours)",
  description: "Read access to the audio's document.",
  request: { params: z.object({ audioId: pathId("audioId") }) },
  responses: { ...okData(AudioRecordSchema), ...errorResponses("ServiceUnavailableError") },
});

export function registerGetAudio(app: Router) {
  app.openapi(route, async (c) => {
    const { audioId } = c.req.valid("param");
    return c.json({ data: await getAudio(ctxOf(c), { audioId, origin: new URL(c.req.url).origin }) }, 200);
  });
}
