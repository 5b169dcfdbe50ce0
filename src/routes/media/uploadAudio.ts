import { defineRoute } from "../../http/route";
import { z } from "@hono/zod-openapi";
import { errorResponses, IdSchemaBody, okData, security, type Router } from "../../openapi";
import { requireDocument } from "../../auth/access";
import { ApiError, validation } from "../../errors";
import { newId, now } from "../../lib/ids";
import { audioMedia } from "../../db/schema";
import { AUDIO_MIME_TYPES, audioRecord, matchesAudioFormat, requireSigningSecret, SNIFF_BYTES } from "../../services/media/audio";
import { checkRawContentType, declaredLength, readPrefix, streamToR2 } from "../../services/media/upload";
import { AudioRecordSchema, rawBody } from "../../schemas/content";

const route = defineRoute({
  operationId: "uploadAudio",
  method: "post",
  path: "/media/audio",
  tags: ["Media"],
  summary: "E9. Upload an audio file",
  description:
    "The body is the raw audio (`application/octet-stream`), streamed to storage; metadata travels in the query string. " +
    "Edit access to the document (unreadable: 404, viewer: 403); a document outside `workspaceId` is 400. " +
    "Content-Length is required (411); over 50 MiB (52,428,800 bytes) is 413; first bytes that do not match `mimeType` " +
    "(ID3/MPEG frame, RIFF…WAVE, ftyp, OggS, ADTS) are 415; a body shorter or longer than its Content-Length is 400. Nothing is stored on any error.",
  security,
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
    ...errorResponses("LengthRequiredError", "PayloadTooLargeError", "UnsupportedMediaTypeError", "ServiceUnavailableError"),
  },
});

export function registerUploadAudio(app: Router) {
  app.openapi(route, async (c) => {
    const db = c.get("db");
    const user = c.get("user");
    const query = c.req.valid("query");
    const secret = requireSigningSecret(c.env.SIGNING_SECRET);
    const { doc } = await requireDocument(db, user, query.documentId, "edit");
    if (doc.workspaceId !== query.workspaceId) {
      throw validation("The document is not in this workspace", [{ path: "workspaceId", message: "does not contain the document" }]);
    }
    checkRawContentType(c.req.raw.headers, (t) => t.startsWith("audio/"));
    const length = declaredLength(c.req.raw.headers);

    const body = c.req.raw.body;
    if (!body) throw new ApiError("UnsupportedMediaTypeError", `The body is empty, not ${query.mimeType} audio`);
    const reader = body.getReader();
    const prefix = await readPrefix(reader, SNIFF_BYTES);
    if (!matchesAudioFormat(query.mimeType, prefix.head)) {
      await reader.cancel().catch(() => {});
      throw new ApiError("UnsupportedMediaTypeError", `The bytes are not ${query.mimeType} audio`);
    }

    const id = newId();
    const r2Key = `audio/${doc.workspaceId}/${id}`;
    const stored = await streamToR2(c.env.BLOBS, r2Key, length, prefix, reader, {
      httpMetadata: { contentType: query.mimeType },
      customMetadata: { documentId: doc.id },
    });
    const row = {
      id,
      documentId: doc.id,
      workspaceId: doc.workspaceId,
      fileName: query.fileName,
      mimeType: query.mimeType,
      size: stored.size,
      r2Key,
      etag: stored.httpEtag,
      userId: user._id,
      createdAt: now(),
    };
    try {
      await db.insert(audioMedia).values(row);
    } catch (err) {
      await c.env.BLOBS.delete(r2Key);
      throw err;
    }
    return c.json({ data: await audioRecord(new URL(c.req.url).origin, row, secret) }, 200);
  });
}
