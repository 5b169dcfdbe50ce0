/**
 * The DOCX area's raw statements (docs/architecture.md, "Services and statements"): a new version numbered inside
 * its own statement (concurrent writers get distinct numbers) and the conditional `seededAt` stamp, built here and
 * run by ./store.
 */
import { statement, type DbLike } from "../../db/d1";

/** Records `blob` as the document's newest version and points the document at it (`external`, without `seededAt`). */
export function docxVersionStatements(
  d1: D1Database,
  p: {
    documentId: string;
    blob: { r2Key: string; size: number; sha256: string; etag: string };
    userId: string;
    t: number;
    external: unknown;
  },
) {
  return [
    statement(
      d1,
      `INSERT INTO docx_versions (document_id, version, r2_key, size, sha256, etag, created_by, created_at)
         SELECT ?, COALESCE(MAX(version), 0) + 1, ?, ?, ?, ?, ?, ? FROM docx_versions WHERE document_id = ?
         RETURNING version`,
      p.documentId,
      p.blob.r2Key,
      p.blob.size,
      p.blob.sha256,
      p.blob.etag,
      p.userId,
      p.t,
      p.documentId,
    ),
    statement(
      d1,
      "UPDATE documents SET external = ?, updated_at = ? WHERE id = ?",
      JSON.stringify(p.external),
      p.t,
      p.documentId,
    ),
  ];
}

/** Stamps `seededAt` = `t` on the document while its current blob is still `resourceId` and carries no stamp yet. */
export function markSeededStatement(db: DbLike, p: { documentId: string; resourceId: string; t: number }) {
  return statement(
    db,
    `UPDATE documents SET external = json_set(external, '$.seededAt', ?)
       WHERE id = ? AND json_extract(external, '$.resourceId') = ? AND json_extract(external, '$.seededAt') IS NULL`,
    p.t,
    p.documentId,
    p.resourceId,
  );
}
