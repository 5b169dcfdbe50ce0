/**
 * E6: base64 DOCX files to base64 PDFs through the office-suite converter, in parallel up to its pool size, in
 * request order. Every `documentId` must be readable (else 403, nothing converted or returned).
 */
import { checkReadableDocuments, documentsAccess, type DocumentAccess } from "../../auth/access";
import { ApiError } from "../../errors";
import { decodeBase64, encodeBase64 } from "../../lib/base64";
import { docxProblem } from "../../lib/docx";
import { mapConcurrent } from "../../lib/concurrency";
import { convertDocxToPdf } from "../converter/client";
import type { ServiceContext } from "../context";
import { recordReadEvent } from "../audit/log";

/**
 * Bad base64 or bytes that are not a DOCX: 400; a DOCX whose entries inflate past the bounds: 413, before any file
 * goes to the converter; a DOCX the office suite cannot read: 422; converter down: 503.
 * The access check (one D1 round trip) and the conversions run side by side: a failed check cancels the
 * conversions and wins over any of their errors. The caller must already be authenticated.
 */
export async function convertDocumentsToPdf(
  ctx: ServiceContext,
  { items }: { items: readonly { documentId: string; docx: string }[] },
) {
  const files = items.map((item, i) => {
    const bytes = decodeBase64(item.docx);
    if (!bytes)
      throw new ApiError("ValidationError", `data.${i}.docx is not valid base64`, {
        details: [{ path: `data.${i}.docx`, message: "not valid base64" }],
      });
    const problem = docxProblem(bytes);
    if (problem?.kind === "too-large") {
      throw new ApiError("PayloadTooLargeError", `data.${i}.docx is refused before conversion: ${problem.reason}`, {
        details: [{ path: `data.${i}.docx`, message: problem.reason }],
      });
    }
    if (problem) {
      throw new ApiError("ValidationError", `data.${i}.docx is not a DOCX file: ${problem.reason}`, {
        details: [{ path: `data.${i}.docx`, message: problem.reason }],
      });
    }
    return { documentId: item.documentId, bytes };
  });
  const cancel = new AbortController();
  const ids = files.map((f) => f.documentId);
  const access = documentsAccessOnTheirShards(ctx, ids)
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
  for (const id of new Set(ids)) {
    const found = checked.value.get(id);
    if (found) recordReadEvent(ctx, "export.pdf", found.doc);
  }
  return converted.value;
}

/** The access to documents that may live on several shard databases: each shard asked for its own, all at once. */
async function documentsAccessOnTheirShards(
  ctx: ServiceContext,
  ids: readonly string[],
): Promise<Map<string, DocumentAccess>> {
  const maps = await Promise.all(
    ctx.byShard(ids, (id) => id).map(([there, some]) => documentsAccess(there.db, ctx.user.id, some)),
  );
  return new Map(maps.flatMap((m) => [...m]));
}
