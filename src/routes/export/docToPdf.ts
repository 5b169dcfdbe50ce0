import { defineRoute, MiB } from "../../http/route";
import { z } from "@hono/zod-openapi";
import { ApiError } from "../../errors";
import { errorResponses, IdSchemaBody, jsonBody, jsonResponse, security, type Router } from "../../openapi";
import { requireReadableDocuments } from "../../auth/access";
import { docxProblem } from "../../lib/docx";
import { convertDocxToPdf } from "../../services/converter/client";
import { mapConcurrent } from "../../lib/concurrency";

const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;
/** Files per request: enough for a project export, bounded so one request cannot monopolise the converter. */
const MAX_FILES = 50;

const route = defineRoute({
  operationId: "docToPdf",
  bodyLimit: 64 * MiB,
  method: "post",
  path: "/export/doc-to-pdf",
  tags: ["Export"],
  summary: "E6. Export to PDF",
  description:
    "Converts each base64 DOCX to PDF through the office-suite converter, in parallel up to its pool size, answering in request order. Every `documentId` must be readable (else 403, nothing converted). Bad base64 or bytes that are not a DOCX: 400; a DOCX the office suite cannot read: 422; converter down or timed out: 503. Bodies up to 64 MiB.",
  security,
  request: jsonBody(
    z.strictObject({
      data: z
        .array(z.strictObject({ documentId: IdSchemaBody, docx: z.string().min(1).max(64 * MiB).openapi({ format: "byte", description: "base64 DOCX" }) }))
        .min(1)
        .max(MAX_FILES),
    }),
  ),
  responses: {
    200: jsonResponse(
      z.object({ pdfDocuments: z.array(z.object({ documentId: z.string(), pdf: z.string().openapi({ format: "byte" }) })) }).openapi("PdfExport"),
    ),
    ...errorResponses("PayloadTooLargeError", "UnprocessableEntityError", "ServiceUnavailableError"),
  },
});

function decodeBase64(value: string): Uint8Array | null {
  const clean = value.replace(/\s+/g, "");
  if (!BASE64.test(clean)) return null;
  const bin = atob(clean);
  const out = new Uint8Array(bin.length);
  for (let i = 0; i < bin.length; i++) out[i] = bin.charCodeAt(i);
  return out;
}

function encodeBase64(bytes: Uint8Array): string {
  let bin = "";
  const CHUNK = 0x8000;
  for (let i = 0; i < bytes.length; i += CHUNK) bin += String.fromCharCode(...bytes.subarray(i, i + CHUNK));
  return btoa(bin);
}

export function registerDocToPdf(app: Router) {
  app.openapi(route, async (c) => {
    const { data } = c.req.valid("json");
    const files = data.map((item, i) => {
      const bytes = decodeBase64(item.docx);
      if (!bytes) throw new ApiError("ValidationError", `data.${i}.docx is not valid base64`, { details: [{ path: `data.${i}.docx`, message: "not valid base64" }] });
      const problem = docxProblem(bytes);
      if (problem) throw new ApiError("ValidationError", `data.${i}.docx is not a DOCX file: ${problem}`, { details: [{ path: `data.${i}.docx`, message: problem }] });
      return { documentId: item.documentId, bytes };
    });
    // The access check and the conversions run side by side (the check costs D1 round trips that would
    // otherwise add to every export); a failed check cancels the conversions and wins over any of their errors,
    // and nothing converted is returned.
    const cancel = new AbortController();
    const access = requireReadableDocuments(c.get("db"), c.get("user"), files.map((f) => f.documentId)).catch((err: unknown) => {
      cancel.abort();
      throw err;
    });
    const concurrency = Math.max(1, Number(c.env.CONVERTER_CONCURRENCY) || 2);
    const conversions = mapConcurrent(files, concurrency, async (f) => {
      if (cancel.signal.aborted) return { documentId: f.documentId, pdf: "" };
      return { documentId: f.documentId, pdf: encodeBase64(await convertDocxToPdf(c.env, f.bytes, cancel.signal)) };
    });
    const [checked, converted] = await Promise.allSettled([access, conversions]);
    if (checked.status === "rejected") throw checked.reason;
    if (converted.status === "rejected") throw converted.reason;
    return c.json({ pdfDocuments: converted.value }, 200);
  });
}
