import { z } from "@hono/zod-openapi";
import { AUDIO_MIME_TYPES } from "../services/media/audio";
import { DOCX_MEDIA_TYPE } from "../services/docx/store";

export const BlocksSchema = z.unknown().openapi({
  description: "The document's rich-text block content (any JSON value)",
  example: [{ type: "paragraph", text: "Hello" }],
});

export const DocumentContentSchema = z
  .object({ documentId: z.string(), version: z.number().int(), blocks: BlocksSchema })
  .openapi("DocumentContent");

export const DocumentSettingsSchema = z
  .object({ listTemplateId: z.string(), importedTermId: z.string() })
  .openapi("DocumentSettings");

export const SnapshotSchema = z
  .object({
    _id: z.string(),
    documentId: z.string(),
    name: z.string(),
    description: z.string(),
    contentVersion: z
      .number()
      .int()
      .openapi({ description: "The content version frozen (0: the document had no content yet)" }),
    docxVersion: z
      .number()
      .int()
      .nullable()
      .openapi({ description: "The DOCX version frozen; null unless the document is an EXTERNAL DOCX" }),
    userId: z.string().openapi({ description: "Who took the snapshot" }),
    createdAt: z.number(),
    updatedAt: z.number(),
  })
  .openapi("Snapshot");

export const AudioRecordSchema = z
  .object({
    _id: z.string(),
    url: z
      .string()
      .openapi({ description: "Signed content URL, valid 6 hours; needs no bearer token and honours Range" }),
    mimeType: z.enum(AUDIO_MIME_TYPES),
  })
  .openapi("AudioRecord");

const binary = z.string().openapi({ type: "string", format: "binary" });

/** A raw-bytes request body, documented under the given media types. */
export function rawBody(description: string, ...mediaTypes: string[]) {
  return {
    body: {
      required: true,
      description,
      content: Object.fromEntries(mediaTypes.map((m) => [m, { schema: binary }])),
    },
  };
}

export const docxBody = () =>
  rawBody(
    "The DOCX file's bytes (a ZIP holding word/document.xml), at most 50 MiB; Content-Length is required",
    DOCX_MEDIA_TYPE,
    "application/octet-stream",
  );

export function binaryResponse(
  mediaTypes: string | readonly string[],
  description: string,
  headers?: Record<string, { description: string; schema: { type: "string" | "integer" } }>,
) {
  const types = typeof mediaTypes === "string" ? [mediaTypes] : mediaTypes;
  return { description, headers, content: Object.fromEntries(types.map((m) => [m, { schema: binary }])) };
}
