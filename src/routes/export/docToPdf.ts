import { z } from "@hono/zod-openapi";
import { ctxOf, defineRoute, MiB } from "../../http/route";
import { errorResponses, IdSchemaBody, jsonBody, jsonResponse, type Router } from "../../openapi";
import { convertDocumentsToPdf } from "../../services/export/pdf";

/** Files per request: enough for a project export, bounded so one request cannot monopolise the converter. */
const MAX_FILES = 50;

const route = defineRoute({
  operationId: "docToPdf",
  // Eager authentication: conversions start beside the access check, never before the caller is known.
  auth: "token",
  bodyLimit: 64 * MiB,
  method: "post",
  path: "/export/doc-to-pdf",
  shard: "service",
  tags: ["Export"],
  summary: "E6. Export to PDF",
  description:
    "Converts each base64 DOCX to PDF through the office-suite converter, in parallel up to its pool size, answering in request order. Every `documentId` must be readable (else 403, nothing converted). Bad base64 or bytes that are not a DOCX: 400; a DOCX whose entries inflate past 100 MiB in all or 100:1 each (a ZIP bomb): 413, before any conversion; a DOCX the office suite cannot read: 422; converter down or timed out: 503. Bodies up to 64 MiB.",
  request: jsonBody(
    z.strictObject({
      data: z
        .array(
          z.strictObject({
            documentId: IdSchemaBody,
            docx: z
              .string()
              .min(1)
              .max(64 * MiB)
              .openapi({ format: "byte", description: "base64 DOCX" }),
          }),
        )
        .min(1)
        .max(MAX_FILES),
    }),
  ),
  responses: {
    200: jsonResponse(
      z
        .object({
          pdfDocuments: z.array(z.object({ documentId: z.string(), pdf: z.string().openapi({ format: "byte" }) })),
        })
        .openapi("PdfExport"),
    ),
    ...errorResponses("PayloadTooLargeError", "UnprocessableEntityError", "ServiceUnavailableError"),
  },
});

export function registerDocToPdf(app: Router) {
  app.openapi(route, async (c) => {
    const { data } = c.req.valid("json");
    return c.json({ pdfDocuments: await convertDocumentsToPdf(ctxOf(c), { items: data }) }, 200);
  });
}
