/**
 * E6: base64 DOCX files to base64 PDFs through the office-suite converter, in parallel up to its pool size, in
 * request order. Every `documentId` must be readable (else 403, nothing converted or returned).
 */
import { checkReadableDocuments, documentsAccess } from "../../auth/access";
import { ApiError } from "../../errors";
import { docxProblem } from "../../lib/docx";
import { mapConcurrent } from "../../lib/concurrency";
import { convertDocxToPdf } from "../converter/client";
import type { ServiceContext } from "../context";

const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;

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

/**
 * Bad base64 or bytes that are not a DOCX: 400; a DOCX the office suite cannot read: 422; converter down: 503.
 * The access check (one D1 round trip) and the conversions run side by side: a failed check cancels the
 * conversions and wins over any of their errors. The caller must already be authenticated.
 */
export async function convertDocumentsToPdf(ctx: ServiceContext, items: readonly { documentId: string; docx: string }[]) {
  const files = items.map((item, i) => {
    const bytes = decodeBase64(item.docx);
    if (!bytes) throw new ApiError("ValidationError", `data.${i}.docx is not valid base64`, { details: [{ path: `data.${i}.docx`, message: "not valid base64" }] });
    const problem = docxProblem(bytes);
    if (problem) throw new ApiError("ValidationError", `data.${i}.docx is not a DOCX file: ${problem}`, { details: [{ path: `data.${i}.docx`, message: problem }] });
    return { documentId: item.documentId, bytes };
  });
  const cancel = new AbortController();
  const ids = files.map((f) => f.documentId);
  const access = documentsAccess(ctx.db, ctx.user.id, ids)
    .then((found) => checkReadableDocuments(found, ids))
    .catch((err: unknown) => {
      cancel.abort();
      throw err;
    });
  const concurrency = Math.max(1, Number(ctx.env.CONVERTER_CONCURRENCY) || 2);
  const conversions = mapConcurrent(files, concurrency, async (f) => {
    if (cancel.signal.aborted) return { documentId: f.documentId, pdf: "" };
    return { documentId: f.documentId, pdf: encodeBase64(await convertDocxToPdf(ctx.env, f.bytes, cancel.signal)) };
  });
  const [checked, converted] = await Promise.allSettled([access, conversions]);
  if (checked.status === "rejected") throw checked.reason;
  if (converted.status === "rejected") throw converted.reason;
  return converted.value;
}
