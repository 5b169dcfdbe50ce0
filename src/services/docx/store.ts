/**
 * DOCX blobs of EXTERNAL documents. Every version is an immutable R2 object that is never deleted (snapshots and
 * restores point at them); D1 keeps one row per version. `documents.external` names the newest blob
 * (`resourceId`) and the path that streams it (`resourcePath`); `seededAt` belongs to that blob and is cleared when
 * a new version is stored.
 */
import { eq, sql } from "drizzle-orm";
import { insertWhere } from "../../db/sql";
import { DOCX_MEDIA_TYPE, verifiedDocxProblem } from "../../lib/docx";
import { docxVersions, documents, type ExternalInfo } from "../../db/schema";
import { d1Of } from "../../db/d1";
import { docxVersionStatements, markSeededStatement } from "./queries";
import { ApiError, conflict } from "../../errors";
import { newId } from "../../lib/ids";
import type { ServiceContext } from "../context";
import { toHex } from "../../lib/crypto";
import { docxBodyStatement } from "../search/queries";

export { DOCX_MEDIA_TYPE };

/**
 * 415 unless `bytes` is a consistent ZIP archive holding `word/document.xml` whose every entry inflates to exactly
 * the size and CRC-32 its headers declare (checked by inflating, stopped past the declared size); 413 if its
 * entries declare more than the bounds. Runs before anything is stored.
 */
export async function checkDocxBytes(bytes: Uint8Array) {
  const problem = await verifiedDocxProblem(bytes);
  if (problem?.kind === "too-large")
    throw new ApiError("PayloadTooLargeError", `The DOCX is refused: ${problem.reason}`);
  if (problem) throw new ApiError("UnsupportedMediaTypeError", `The body is not a DOCX file (${problem.reason})`);
}

export interface StoredBlob {
  blobId: string;
  r2Key: string;
  size: number;
  sha256: string;
  etag: string;
}

/**
 * Custom metadata of every DOCX blob stored after checkDocxBytes inflated it. Blobs stored before that check
 * existed lack it, and E21 checks those as it reads them (exportDocx).
 */
export const INFLATION_CHECKED = { inflation: "checked" } as const;

export function inflationChecked(obj: R2Object): boolean {
  return obj.customMetadata?.inflation === INFLATION_CHECKED.inflation;
}
import { asStatements, docxEntryQuery } from "../changes/recordLog";

/** Stores bytes that passed checkDocxBytes. */
export async function putDocxBlob(r2: R2Bucket, documentId: string, bytes: Uint8Array): Promise<StoredBlob> {
  const blobId = newId();
  const r2Key = `docx/${documentId}/${blobId}.docx`;
  const digest = await crypto.subtle.digest("SHA-256", bytes);
  const obj = await r2.put(r2Key, bytes, {
    httpMetadata: { contentType: DOCX_MEDIA_TYPE },
    customMetadata: INFLATION_CHECKED,
    sha256: digest,
  });
  return { blobId, r2Key, size: bytes.byteLength, sha256: toHex(new Uint8Array(digest)), etag: obj.httpEtag };
}

/** The blob id a DOCX object key ends with (`docx/{documentId}/{blobId}.docx`). */
export function blobIdOfKey(r2Key: string): string {
  return r2Key.slice(r2Key.lastIndexOf("/") + 1).replace(/\.docx$/, "");
}

export function docxExternal(documentId: string, blobId: string): ExternalInfo {
  return { type: "DOCX", resourcePath: `/document/docx/${documentId}/export`, resourceId: blobId };
}

export function isDocx(doc: typeof documents.$inferSelect) {
  return doc.type === "EXTERNAL" && doc.external?.type === "DOCX";
}

export function requireDocx(doc: typeof documents.$inferSelect) {
  if (!isDocx(doc)) throw conflict("The document is not an EXTERNAL DOCX document");
}

/** The row statement that records version 1 of a new DOCX document (run in the document's create batch). */
export function firstDocxVersion(ctx: ServiceContext, { documentId, blob }: { documentId: string; blob: StoredBlob }) {
  const userId = ctx.user.id;
  // Batched after the document's own insert, which is conditional on its folder being live: only with it.
  return insertWhere(
    ctx.db,
    docxVersions,
    {
      documentId,
      version: 1,
      r2Key: blob.r2Key,
      size: blob.size,
      sha256: blob.sha256,
      etag: blob.etag,
      createdBy: userId,
      createdAt: ctx.now,
    },
    sql`EXISTS (SELECT 1 FROM ${documents} d WHERE d.id = ${documentId})`,
  );
}

/**
 * Records `blob` as the newest version and points the document at it, clearing `seededAt`, in one atomic batch.
 * The version number is computed inside the statement, so concurrent writers get distinct numbers.
 */
export async function addDocxVersion(
  ctx: ServiceContext,
  { documentId, blob, bytes }: { documentId: string; blob: StoredBlob; bytes: Uint8Array },
): Promise<number> {
  const userId = ctx.user.id;
  const d1 = d1Of(ctx.db);
  const t = ctx.now;
  const external = docxExternal(documentId, blob.blobId);
  const [inserted] = await d1.batch<{ version: number }>([
    ...docxVersionStatements(d1, { documentId, blob, userId, t, external }),
    docxBodyStatement(d1, documentId, blob.r2Key, bytes),
    ...asStatements(d1, docxEntryQuery(ctx, { documentId, r2Key: blob.r2Key })),
  ]);
  return inserted!.results[0]!.version;
}

/**
 * E18: stamps `seededAt` on the document's current DOCX blob unless it already carries one, and answers the
 * stamp in force. The update is conditional on the blob it read, so a version stored meanwhile is never marked.
 */
export async function markSeeded(ctx: ServiceContext, doc: typeof documents.$inferSelect): Promise<number> {
  const db = ctx.db;
  for (let attempt = 0; attempt < 3; attempt++) {
    const external =
      attempt === 0
        ? doc.external
        : (await db.select({ external: documents.external }).from(documents).where(eq(documents.id, doc.id)))[0]
            ?.external;
    if (!external || external.type !== "DOCX") throw conflict("The document is not an EXTERNAL DOCX document");
    if (typeof external.seededAt === "number") return external.seededAt;
    const t = ctx.now;
    const res = await markSeededStatement(db, { documentId: doc.id, resourceId: external.resourceId, t }).run();
    if (res.meta.changes === 1) return t;
  }
  throw conflict("The DOCX changed while it was being marked; try again");
}
