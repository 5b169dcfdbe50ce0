/**
 * Keeping the search index in step with writes (docs/api-guide.md › Search). Names and cells are indexed by triggers
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
