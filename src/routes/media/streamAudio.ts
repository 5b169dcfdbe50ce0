import { z } from "@hono/zod-openapi";
import { ctxOf, defineRoute } from "../../http/route";
import { r2ConditionsOf } from "../../http/conditional";
import { contentRange, rangeNotSatisfiable, rangeOf } from "../../http/range";
import { onlyErrorResponses, pathId, type Router } from "../../openapi";
import { AUDIO_MIME_TYPES, streamAudio } from "../../services/media/audio";
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
    "Expired or tampered: 403. Honours a single `Range: bytes=…` (206 with Content-Range; unsatisfiable: 416) and `If-None-Match` with the file's ETag (304).",
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
    304: { description: "Not modified (If-None-Match matched the file's ETag)" },
    ...onlyErrorResponses(
      "ValidationError",
      "ForbiddenError",
      "NotFoundError",
      "RangeNotSatisfiableError",
      "InternalError",
      "ServiceUnavailableError",
    ),
  },
});

export function registerStreamAudio(app: Router) {
  app.openapi(route, async (c) => {
    const { audioId } = c.req.valid("param");
    const { expires, signature } = c.req.valid("query");
    const audio = await streamAudio(ctxOf(c), {
      audioId,
      expires,
      signature,
      rangeFor: rangeOf(c),
      onlyIf: r2ConditionsOf(c),
    });
    if (audio.kind === "unsatisfiable") return rangeNotSatisfiable(c, audio.size);
    const cache = { "Accept-Ranges": "bytes", "Cache-Control": "private, max-age=3600" };
    if (audio.kind === "notModified")
      return new Response(null, { status: 304, headers: { ...cache, ETag: audio.etag } });
    const headers: Record<string, string> = { ...cache, "Content-Type": audio.mimeType, ETag: audio.etag };
    if (audio.range) {
      headers["Content-Range"] = contentRange(audio.range, audio.size);
      headers["Content-Length"] = String(audio.range.length);
      return new Response(audio.body, { status: 206, headers });
    }
    headers["Content-Length"] = String(audio.size);
    return new Response(audio.body, { status: 200, headers });
  });
}
