import { z } from "@hono/zod-openapi";
import { ctxOf, defineRoute } from "../../http/route";
import { rawUploadOf } from "../../http/upload";
import { errorResponses, IdSchemaBody, okData, type Router } from "../../openapi";
import { AUDIO_MIME_TYPES, uploadAudio } from "../../services/media/audio";
import { AudioRecordSchema, rawBody } from "../../schemas/content";

const route = defineRoute({
  operationId: "uploadAudio",
  method: "post",
  path: "/media/audio",
  shard: { query: "documentId" },
  tags: ["Media"],
  summary: "E9. Upload an audio file",
  description:
    "The body is the raw audio (`application/octet-stream`), streamed to storage; metadata travels in the query string. " +
    "Edit access to the document (unreadable: 404, viewer: 403); a document outside `workspaceId` is 400. " +
    "Content-Length is required (411); over 50 MiB (52,428,800 bytes) is 413; first bytes that do not match `mimeType` " +
    "(ID3/MPEG frame, RIFF…WAVE, ftyp, OggS, ADTS) are 415; a body shorter or longer than its Content-Length is 400. Nothing is stored on any error.",
  request: {
    query: z.object({
      workspaceId: IdSchemaBody,
      documentId: IdSchemaBody,
      fileName: z.string().min(1).max(500),
      mimeType: z.enum(AUDIO_MIME_TYPES),
    }),
    ...rawBody("The raw audio bytes (mp3, wav, m4a, ogg, aac), at most 50 MiB", "application/octet-stream"),
  },
  responses: {
    ...okData(AudioRecordSchema),
    ...errorResponses(
      "LengthRequiredError",
      "PayloadTooLargeError",
      "UnsupportedMediaTypeError",
      "ServiceUnavailableError",
    ),
  },
});

export function registerUploadAudio(app: Router) {
  app.openapi(route, async (c) => {
    const query = c.req.valid("query");
    const upload = rawUploadOf(c, (t) => t.startsWith("audio/"));
    return c.json({ data: await uploadAudio(ctxOf(c), { ...query, upload, origin: new URL(c.req.url).origin }) }, 200);
  });
}
