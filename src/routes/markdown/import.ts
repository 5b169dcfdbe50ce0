import { z } from "@hono/zod-openapi";
import type { Context } from "hono";
import type { HonoEnv } from "../../env";
import { ctxOf, defineRoute } from "../../http/route";
import { fileBodyOf } from "../../http/upload";
import { ApiError } from "../../errors";
import { errorResponses, IdSchemaBody, NameSchema, okData, type Router } from "../../openapi";
import { DocumentSchema } from "../../schemas/core";
import { importMarkdownDocument, MAX_MARKDOWN_BYTES } from "../../services/markdown/documents";

const route = defineRoute({
  operationId: "importMarkdownDocument",
  // Authenticated before the body is read.
  auth: "token",
  // Token, placing the document (access, parent, order), then one batch with the document and its first content.
  roundTrips: 3,
  method: "post",
  path: "/document/markdown",
  shard: { query: "projectId" },
  tags: ["Documents"],
  summary: "Create a rich-text document from a Markdown file",
  description:
    "Access as for `POST /document` (project root: workspace owner/admin/editor; inside a folder: edit access to it). " +
    "The body is the Markdown text (`text/markdown`, UTF-8) or a `multipart/form-data` upload whose `file` part holds it; " +
    `at most ${MAX_MARKDOWN_BYTES / 1024 / 1024} MiB (413). GitHub Flavored Markdown: headings, paragraphs with bold, italic, ` +
    "strikethrough, inline code and links, bullet, numbered and task lists (nested), quotes, fenced code, tables, images by URL " +
    "and rules become the editor's blocks. The answer is the new document and its content version. " +
    "Text nested or costing past the import bounds (containers or inline constructs 64 deep, list items 32, the work budget of docs/api-guide.md › Limits) " +
    "is 422 before it is parsed, `details[0].line` naming the line.",
  request: {
    query: z.object({ projectId: IdSchemaBody, name: NameSchema, parentId: IdSchemaBody.optional() }),
    body: {
      required: true,
      description: "The Markdown text, raw or as the `file` part of a form",
      content: {
        "text/markdown": { schema: { type: "string", maxLength: MAX_MARKDOWN_BYTES } },
        "multipart/form-data": {
          schema: {
            type: "object",
            required: ["file"],
            properties: { file: { type: "string", format: "binary", maxLength: MAX_MARKDOWN_BYTES } },
          },
        },
      },
    },
  },
  responses: {
    ...okData(
      z
        .object({ document: DocumentSchema, version: z.number().int(), blocks: z.number().int() })
        .openapi("MarkdownImport"),
    ),
    ...errorResponses("PayloadTooLargeError", "UnsupportedMediaTypeError", "UnprocessableEntityError"),
  },
});

/** The Markdown text of the request, within the size limit (413 from the declared length, or as it is read). */
async function markdownOf(c: Context<HonoEnv>): Promise<string> {
  const body = await fileBodyOf(c, {
    mediaTypes: ["text/markdown", "text/x-markdown", "text/plain"],
    limit: MAX_MARKDOWN_BYTES,
    what: "Markdown",
  });
  const bytes = await readLimited(body, MAX_MARKDOWN_BYTES);
  try {
    return new TextDecoder("utf-8", { fatal: true, ignoreBOM: false }).decode(bytes);
  } catch {
    throw new ApiError("UnsupportedMediaTypeError", "The Markdown must be UTF-8 text");
  }
}

/** The body's bytes, counted as they arrive: 413 past `limit` whatever Content-Length said. */
async function readLimited(body: ReadableStream<Uint8Array> | null, limit: number): Promise<ArrayBuffer> {
  if (!body) return new ArrayBuffer(0);
  const chunks: Uint8Array[] = [];
  let total = 0;
  for await (const chunk of body) {
    total += chunk.byteLength;
    if (total > limit) throw new ApiError("PayloadTooLargeError", `A Markdown file is limited to ${limit} bytes`);
    chunks.push(chunk);
  }
  const out = new Uint8Array(total);
  let at = 0;
  for (const chunk of chunks) {
    out.set(chunk, at);
    at += chunk.byteLength;
  }
  return out.buffer;
}

export function registerImportMarkdownDocument(app: Router) {
  app.openapi(route, async (c) => {
    const { projectId, name, parentId } = c.req.valid("query");
    const markdown = await markdownOf(c);
    return c.json({ data: await importMarkdownDocument(ctxOf(c), { projectId, name, parentId, markdown }) }, 200);
  });
}
