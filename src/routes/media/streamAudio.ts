import { defineRoute } from "../../http/route";
import { z } from "@hono/zod-openapi";
import { onlyErrorResponses, pathId, type Router } from "../../openapi";
import { errorBody, notFound } from "../../errors";
import { AUDIO_MIME_TYPES, findAudio, parseRange, requireSigningSecret, verifyAudioSignature } from "../../services/media/audio";
import { binaryResponse } from "../../schemas/content";

const route = defineRoute({
  operationId: "streamAudio",
  auth: "public",
  method: "get",
  path: "/media/audio/{audioId}/content",
  tags: ["Media"],
  summary: "Stream audio bytes through a signed URL",
  description:
    "Needs no bearer token: the `expires` (ms) and `signature` query parameters issued in an audio record's `url` authorize it. " +
    "Expired or tampered: 403. Honours a single `Range: bytes=…` (206 with Content-Range; unsatisfiable: 416).",
  security: [],
  request: {
    params: z.object({ audioId: pathId("audioId") }),
    query: z.object({ expires: z.string().max(20).optional(), signature: z.string().max(200).optional() }),
  },
  responses: {
    200: binaryResponse(AUDIO_MIME_TYPES, "The whole file, with the MIME type it was uploaded as", {
      "Accept-Ranges": { description: "bytes", schema: { type: "string" } },
      "Content-Length": { description: "Size in bytes", schema: { type: "integer" } },
    }),
    206: binaryResponse(AUDIO_MIME_TYPES, "The requested byte range", {
      "Content-Range": { description: "bytes first-last/size", schema: { type: "string" } },
    }),
    ...onlyErrorResponses("ValidationError", "ForbiddenError", "NotFoundError", "RangeNotSatisfiableError", "InternalError", "ServiceUnavailableError"),
  },
});

export function registerStreamAudio(app: Router) {
  app.openapi(route, async (c) => {
    const { audioId } = c.req.valid("param");
    const { expires, signature } = c.req.valid("query");
    await verifyAudioSignature(audioId, expires, signature, requireSigningSecret(c.env.SIGNING_SECRET));
    const audio = await findAudio(c.get("db"), audioId);
    if (!audio || audio.documentDeleted) throw notFound("Audio");

    const headers: Record<string, string> = {
      "Content-Type": audio.mimeType,
      "Accept-Ranges": "bytes",
      ETag: audio.etag,
      "Cache-Control": "private, max-age=3600",
    };
    const range = parseRange(c.req.header("range"), audio.size);
    if (range === "unsatisfiable") {
      return c.json(errorBody("RangeNotSatisfiableError", `The range is outside the ${audio.size}-byte file`), 416, { "Content-Range": `bytes */${audio.size}` });
    }
    const obj = await c.env.BLOBS.get(audio.r2Key, range ? { range } : undefined);
    if (!obj) throw notFound("Audio");
    if (range) {
      headers["Content-Range"] = `bytes ${range.offset}-${range.offset + range.length - 1}/${audio.size}`;
      headers["Content-Length"] = String(range.length);
      return new Response(obj.body, { status: 206, headers });
    }
    headers["Content-Length"] = String(audio.size);
    return new Response(obj.body, { status: 200, headers });
  });
}
