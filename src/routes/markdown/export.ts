import { z } from "@hono/zod-openapi";
import { ctxOf, defineRoute } from "../../http/route";
import { attachmentDisposition } from "../../http/disposition";
import { errorResponses, pathId, type Router } from "../../openapi";
import { binaryResponse } from "../../schemas/content";
import {
  exportFolderZip,
  exportMarkdownDocument,
  MAX_ZIP_CONTENT_BYTES,
  MAX_ZIP_DOCUMENTS,
} from "../../services/markdown/documents";

const disposition = {
  "Content-Disposition": {
    description: "attachment; filename=…; filename*=UTF-8''…",
    schema: { type: "string" as const },
  },
};

const markdownRoute = defineRoute({
  operationId: "exportMarkdownDocument",
  auth: "batched",
  // Access and content metadata with authentication; a second only when a write replaced the content meanwhile.
  roundTrips: 2,
  method: "get",
  path: "/document/{documentId}/export.md",
  tags: ["Documents"],
  summary: "Export a rich-text document as Markdown",
  description:
    "Read access. The stored content as GitHub Flavored Markdown (what POST /document/markdown reads back to the same blocks): " +
    "headings, styled text and links, lists and task lists, quotes, code, tables, images, rules. What Markdown cannot say " +
    "(colours, alignment, underline) is left out. A folder or an EXTERNAL document is 409.",
  request: { params: z.object({ documentId: pathId("documentId") }) },
  responses: {
    200: binaryResponse("text/markdown", "The Markdown text (UTF-8)", disposition),
    ...errorResponses("ConflictError"),
  },
});

const zipRoute = defineRoute({
  operationId: "exportFolderMarkdownZip",
  auth: "batched",
  // The whole subtree's access and content metadata with authentication; a second only on a concurrent write.
  roundTrips: 2,
  method: "get",
  path: "/document/{documentId}/export.zip",
  tags: ["Documents"],
  summary: "Export a folder as a ZIP of Markdown files",
  description:
    "Read access to the folder. Every rich-text document below it that the caller can read, as `<name>.md` in directories " +
    "named after its folders (names made safe for file systems; repeats get ` (2)`, ` (3)`, …); EXTERNAL documents are not " +
    `included. At most ${MAX_ZIP_DOCUMENTS} documents and ${MAX_ZIP_CONTENT_BYTES / 1024 / 1024} MiB of content (422: export subfolders). Not a folder: 409.`,
  request: { params: z.object({ documentId: pathId("documentId") }) },
  responses: {
    200: binaryResponse("application/zip", "The ZIP archive", disposition),
    ...errorResponses("ConflictError", "UnprocessableEntityError"),
  },
});

export function registerExportMarkdown(app: Router) {
  app.openapi(markdownRoute, async (c) => {
    const { name, markdown } = await exportMarkdownDocument(ctxOf(c), c.req.valid("param"));
    return new Response(markdown, {
      status: 200,
      headers: {
        "Content-Type": "text/markdown; charset=utf-8",
        "Content-Disposition": attachmentDisposition(name, ".md"),
        "Cache-Control": "private, no-store",
      },
    }) as never;
  });
  app.openapi(zipRoute, async (c) => {
    const { name, zip } = await exportFolderZip(ctxOf(c), { folderId: c.req.valid("param").documentId });
    return new Response(zip, {
      status: 200,
      headers: {
        "Content-Type": "application/zip",
        "Content-Disposition": attachmentDisposition(name, ".zip"),
        "Cache-Control": "private, no-store",
      },
    }) as never;
  });
}
