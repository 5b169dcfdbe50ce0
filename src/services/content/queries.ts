/**
 * The content area's raw statements (docs/architecture.md, "Services and statements"): the compare-and-set of a
 * document's content version, snapshots frozen in one statement, their deletion and the restore of a frozen DOCX
 * version — what Drizzle's builders cannot express, built here and run by ./store, ./snapshots and ./snapshotRestore.
 */
import { statement } from "../../db/d1";
import { blobIdOfKey, docxExternal } from "../docx/store";
import type { FrozenState } from "./snapshots";

/** The document's current content object: its version, key, and whether a snapshot shares that key. */
export function currentContentStatement(d1: D1Database, documentId: string) {
  return statement(
    d1,
    `SELECT c.version, c.r2_key, EXISTS (SELECT 1 FROM snapshots s WHERE s.content_key = c.r2_key) AS shared
       FROM document_contents c WHERE c.document_id = ?`,
    documentId,
  );
}

/**
 * The statement that makes the object under `key` the document's current content, `RETURNING version` (no row when
 * `baseVersion` is no longer current): conditional on `baseVersion` (insert-if-absent for 0), else an upsert.
 */
export function contentBumpStatement(
  d1: D1Database,
  p: { documentId: string; size: number; key: string; userId: string; at: number; baseVersion?: number },
): D1PreparedStatement {
  if (p.baseVersion === undefined) {
    return statement(
      d1,
      `INSERT INTO document_contents (document_id, version, size, r2_key, updated_by, updated_at) VALUES (?, 1, ?, ?, ?, ?)
         ON CONFLICT (document_id) DO UPDATE SET version = version + 1, size = excluded.size, r2_key = excluded.r2_key,
           updated_by = excluded.updated_by, updated_at = excluded.updated_at
         RETURNING version`,
      p.documentId,
      p.size,
      p.key,
      p.userId,
      p.at,
    );
  }
  if (p.baseVersion === 0) {
    return statement(
      d1,
      `INSERT INTO document_contents (document_id, version, size, r2_key, updated_by, updated_at) VALUES (?, 1, ?, ?, ?, ?)
         ON CONFLICT (document_id) DO NOTHING RETURNING version`,
      p.documentId,
      p.size,
      p.key,
      p.userId,
      p.at,
    );
  }
  return statement(
    d1,
    `UPDATE document_contents SET version = version + 1, size = ?, r2_key = ?, updated_by = ?, updated_at = ?
       WHERE document_id = ? AND version = ? RETURNING version`,
    p.size,
    p.key,
    p.userId,
    p.at,
    p.documentId,
    p.baseVersion,
  );
}

/** Snapshot columns under their camelCase names, for raw `RETURNING` clauses. */
const RETURNING_SNAPSHOT = `id, document_id AS documentId, name, description, content_version AS contentVersion, content_key AS contentKey,
  content_size AS contentSize, docx_version AS docxVersion, docx_key AS docxKey, user_id AS userId, created_at AS createdAt, updated_at AS updatedAt`;

/**
 * The statement that freezes the document's current content and newest DOCX version, `RETURNING` the new row: one
 * statement, so it points at whatever was current at that instant even while a content write races it.
 */
export function snapshotInsertStatement(
  d1: D1Database,
  p: {
    id: string;
    documentId: string;
    name: string;
    description: string;
    userId: string;
    at: number;
    frozen?: FrozenState;
  },
) {
  // With `frozen`, only if the document is still at the versions read (the answer kept with the snapshot names them).
  const guard = p.frozen ? ` AND COALESCE(c.version, 0) = ? AND v.version IS ?` : "";
  return statement(
    d1,
    `INSERT INTO snapshots (id, document_id, name, description, content_version, content_key, content_size, docx_version, docx_key, user_id, created_at, updated_at)
       SELECT ?, d.id, ?, ?, COALESCE(c.version, 0), c.r2_key, COALESCE(c.size, 0), v.version, v.r2_key, ?, ?, ?
       FROM documents d
       LEFT JOIN document_contents c ON c.document_id = d.id
       LEFT JOIN docx_versions v ON v.document_id = d.id
         AND v.version = (SELECT MAX(version) FROM docx_versions WHERE document_id = d.id)
         AND d.type = 'EXTERNAL' AND json_extract(d.external, '$.type') = 'DOCX'
       WHERE d.id = ?${guard}
       RETURNING ${RETURNING_SNAPSHOT}`,
    p.id,
    p.name,
    p.description,
    p.userId,
    p.at,
    p.at,
    p.documentId,
    ...(p.frozen ? [p.frozen.contentVersion, p.frozen.docxVersion] : []),
  );
}

/** Records the frozen version's immutable blob again as the newest version and points the document at it (clears `seededAt`). */
export function restoreDocxStatements(
  d1: D1Database,
  documentId: string,
  frozenVersion: number,
  frozenKey: string,
  userId: string,
  t: number,
) {
  const external = docxExternal(documentId, blobIdOfKey(frozenKey));
  return [
    statement(
      d1,
      `INSERT INTO docx_versions (document_id, version, r2_key, size, sha256, etag, created_by, created_at)
         SELECT f.document_id, (SELECT MAX(version) FROM docx_versions WHERE document_id = f.document_id) + 1, f.r2_key, f.size, f.sha256, f.etag, ?, ?
         FROM docx_versions f WHERE f.document_id = ? AND f.version = ?
         RETURNING version`,
      userId,
      t,
      documentId,
      frozenVersion,
    ),
    statement(
      d1,
      "UPDATE documents SET external = ?, updated_at = ? WHERE id = ?",
      JSON.stringify(external),
      t,
      documentId,
    ),
  ];
}

/**
 * Deletes the snapshot `row` (`ifUnchanged`: only while its name, description and update time are as read) and, when
 * it froze a content object, asks whether anything else still points at that object (the second statement's `shared`).
 */
export function dropSnapshotStatements(
  d1: D1Database,
  row: { id: string; name: string; description: string; updatedAt: number; contentKey: string | null },
  ifUnchanged: boolean,
) {
  const statements = [
    ifUnchanged
      ? statement(
          d1,
          "DELETE FROM snapshots WHERE id = ? AND name = ? AND description = ? AND updated_at = ?",
          row.id,
          row.name,
          row.description,
          row.updatedAt,
        )
      : statement(d1, "DELETE FROM snapshots WHERE id = ?", row.id),
  ];
  if (row.contentKey) {
    statements.push(
      statement(
        d1,
        "SELECT EXISTS (SELECT 1 FROM snapshots WHERE content_key = ?1) OR EXISTS (SELECT 1 FROM document_contents WHERE r2_key = ?1) AS shared",
        row.contentKey,
      ),
    );
  }
  return statements;
}
