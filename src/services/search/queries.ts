/**
 * The search area's statements (docs/architecture.md, "Statements"). Keeping the search index in step with writes
 * (docs/api-guide.md › Search). Names and cells are indexed by triggers
 * (migrations/shard/0000 and 0005); bodies that live in R2 (rich-text content, DOCX files) are indexed by a statement the
 * writer adds to the same D1 batch as its own write, so the index never runs ahead of or behind what was stored.
 */
import { statement } from "../../db/d1";
import { and, eq, sql } from "drizzle-orm";
import { integer, sqliteTable, text } from "drizzle-orm/sqlite-core";
import type { Db } from "../../env";
import { blocksJsonText, docxText } from "./text";

/**
 * Sets a document's indexed body to the text of the content object `key`, only when that object is now the
 * document's current content: batched after the version bump, a write that lost its compare-and-set changes nothing.
 * A file's body is its DOCX text, which content writes leave alone.
 */
export function contentBodyStatement(
  d1: D1Database,
  documentId: string,
  key: string,
  blocksJson: string,
): D1PreparedStatement {
  return statement(
    d1,
    `UPDATE search_entries SET body = ?1 WHERE record_id = ?2 AND kind <> 'file'
         AND EXISTS (SELECT 1 FROM document_contents WHERE document_id = ?2 AND r2_key = ?3)`,
    blocksJsonText(blocksJson),
    documentId,
    key,
  );
}

/**
 * Sets a DOCX document's indexed body to the text of the blob `r2Key`, only when that blob is the newest version
 * (batched after the version's insert). Upserts: in a create batch the entry appears with the document's insert.
 */
export function docxBodyStatement(
  d1: D1Database,
  documentId: string,
  r2Key: string,
  bytes: Uint8Array,
): D1PreparedStatement {
  return statement(
    d1,
    `UPDATE search_entries SET body = ?1 WHERE record_id = ?2
         AND (SELECT r2_key FROM docx_versions WHERE document_id = ?2 ORDER BY version DESC LIMIT 1) = ?3`,
    docxText(bytes),
    documentId,
    r2Key,
  );
}

/**
 * The index's own table as Drizzle sees it, for statements in a Drizzle batch. Deliberately outside src/db/schema:
 * the migration that creates it is custom (virtual table and triggers), and drizzle-kit must not manage it.
 */
const searchEntries = sqliteTable("search_entries", {
  id: integer("id").primaryKey(),
  recordId: text("record_id").notNull(),
  kind: text("kind").notNull(),
  title: text("title").notNull(),
  body: text("body").notNull(),
});

/**
 * The body text of a rich-text document created in the same Drizzle batch with its first content (a Markdown
 * import): the document's entry is made by the insert trigger earlier in that batch.
 */
export function newContentBodyQuery(db: Db, documentId: string, blocksJson: string) {
  return db
    .update(searchEntries)
    .set({ body: blocksJsonText(blocksJson) })
    .where(and(eq(searchEntries.recordId, documentId), sql`${searchEntries.kind} <> 'file'`));
}

/** docxBodyStatement for a Drizzle batch (the create batch of a DOCX document). */
export function docxBodyQuery(db: Db, documentId: string, r2Key: string, bytes: Uint8Array) {
  return db
    .update(searchEntries)
    .set({ body: docxText(bytes) })
    .where(
      and(
        eq(searchEntries.recordId, documentId),
        sql`(SELECT r2_key FROM docx_versions WHERE document_id = ${documentId} ORDER BY version DESC LIMIT 1) = ${r2Key}`,
      ),
    );
}

// ── The rebuild (reindex.ts) ─────────────────────────────────────────────────────────────────────────────────

const ROW_TEXT = (rowId: string) => `
  COALESCE((SELECT group_concat(json_extract(c.data, '$'), ' ') FROM cells c JOIN columns co ON co.id = c.column_id
    WHERE c.row_id = ${rowId} AND c.is_identifier = 1 AND c.is_deleted = 0 AND co.is_deleted = 0 AND json_type(c.data) = 'text'), ''),
  COALESCE((SELECT group_concat(json_extract(c.data, '$'), ' ') FROM cells c JOIN columns co ON co.id = c.column_id
    WHERE c.row_id = ${rowId} AND c.is_identifier = 0 AND c.is_deleted = 0 AND co.is_deleted = 0 AND json_type(c.data) = 'text'
      AND json_extract(co.data, '$.type') IN ('text', 'url', 'email')), '')`;

/**
 * A comment's entry is live while it is not a tombstone and its target is live (migrations/shard/0013, whose
 * triggers keep it so).
 */
const COMMENT_LIVE = `c.is_deleted = 0 AND CASE WHEN c.document_id IS NOT NULL
    THEN EXISTS (SELECT 1 FROM documents d WHERE d.id = c.document_id AND d.is_deleted = 0)
    ELSE EXISTS (SELECT 1 FROM rows r JOIN tables t ON t.id = r.table_id WHERE r.id = c.row_id AND r.is_deleted = 0 AND t.is_deleted = 0) END`;

/** The SQL-only part: titles, rows, comments, saved views, and entries of records that no longer exist. */
export function structureStatements(d1: D1Database): D1PreparedStatement[] {
  return [
    statement(
      d1,
      `INSERT INTO search_entries (record_id, kind, title, workspace_id, project_id, live)
      SELECT id, CASE WHEN type = 'EXTERNAL' THEN 'file' ELSE 'document' END, name, workspace_id, project_id, is_deleted = 0 FROM documents WHERE true
      ON CONFLICT (record_id) DO UPDATE SET title = excluded.title, kind = excluded.kind, workspace_id = excluded.workspace_id,
        project_id = excluded.project_id, live = excluded.live`,
    ),
    statement(
      d1,
      `INSERT INTO search_entries (record_id, kind, title, body, workspace_id, project_id, live)
      SELECT r.id, 'row', ${ROW_TEXT("r.id")}, r.workspace_id, r.project_id,
        r.is_deleted = 0 AND NOT EXISTS (SELECT 1 FROM tables t WHERE t.id = r.table_id AND t.is_deleted = 1)
      FROM rows r WHERE EXISTS (SELECT 1 FROM cells c WHERE c.row_id = r.id)
      ON CONFLICT (record_id) DO UPDATE SET title = excluded.title, body = excluded.body, workspace_id = excluded.workspace_id,
        project_id = excluded.project_id, live = excluded.live`,
    ),
    statement(
      d1,
      `INSERT INTO search_entries (record_id, kind, title, body, workspace_id, project_id, document_id, row_id, live)
      SELECT c.id, 'comment', '', c.body, c.workspace_id, c.project_id, c.document_id, c.row_id, ${COMMENT_LIVE}
      FROM comments c WHERE true
      ON CONFLICT (record_id) DO UPDATE SET body = excluded.body, workspace_id = excluded.workspace_id,
        project_id = excluded.project_id, document_id = excluded.document_id, row_id = excluded.row_id, live = excluded.live`,
    ),
    statement(
      d1,
      `INSERT INTO search_entries (record_id, kind, title, body, workspace_id, project_id, live)
      SELECT v.id, 'view', v.name, '', v.workspace_id, v.project_id,
        v.is_deleted = 0 AND EXISTS (SELECT 1 FROM tables t WHERE t.id = v.table_id AND t.is_deleted = 0)
      FROM table_views v WHERE true
      ON CONFLICT (record_id) DO UPDATE SET title = excluded.title, workspace_id = excluded.workspace_id,
        project_id = excluded.project_id, live = excluded.live`,
    ),
    statement(
      d1,
      `DELETE FROM search_entries WHERE
      (kind = 'row' AND NOT EXISTS (SELECT 1 FROM rows r WHERE r.id = search_entries.record_id))
      OR (kind = 'comment' AND NOT EXISTS (SELECT 1 FROM comments c WHERE c.id = search_entries.record_id))
      OR (kind = 'view' AND NOT EXISTS (SELECT 1 FROM table_views v WHERE v.id = search_entries.record_id))
      OR (kind NOT IN ('row', 'comment', 'view') AND NOT EXISTS (SELECT 1 FROM documents d WHERE d.id = search_entries.record_id))`,
    ),
  ];
}

/** A page of the rebuild's documents after `cursor` (id order), with their content object and newest DOCX blob. */
export function bodySourcesStatement(d1: D1Database, cursor: string, page: number): D1PreparedStatement {
  return statement(
    d1,
    `SELECT d.id, d.type, c.r2_key AS content_key,
         (SELECT v.r2_key FROM docx_versions v WHERE v.document_id = d.id ORDER BY v.version DESC LIMIT 1) AS docx_key
       FROM documents d LEFT JOIN document_contents c ON c.document_id = d.id
       WHERE d.id > ?1 ORDER BY d.id LIMIT ?2`,
    cursor,
    page,
  );
}

/** The entries' bodies rewritten from the text read out of R2, one statement for the page. */
export function bodiesStatement(d1: D1Database, bodies: readonly { id: string; body: string }[]): D1PreparedStatement {
  return statement(
    d1,
    `UPDATE search_entries SET body = j.value ->> 1 FROM json_each(?1) j WHERE search_entries.record_id = j.value ->> 0`,
    JSON.stringify(bodies.map((b) => [b.id, b.body])),
  );
}

/** FTS5 rebuilds its index from `search_entries`: the rebuild's last statement on a shard database. */
export function ftsRebuildStatement(d1: D1Database): D1PreparedStatement {
  return statement(d1, `INSERT INTO search_fts (search_fts) VALUES ('rebuild')`);
}
