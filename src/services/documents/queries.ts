/**
 * The documents area's statement builders (docs/architecture.md, "Services and statements"): batchable reads of the
 * folder tree and of what a document's answer carries, and the restore of a deleted subtree. They return the query
 * without running it; the services put them in their batches (read(ctx, [...]) or the write's batch).
 *
 * The walks are raw selects (rawSelect) over ./tree.ts's recursive subtree. An empty id ("") matches nothing:
 * services pass it when a walk is not needed, keeping the batch's shape fixed.
 */
import { and, eq, isNull, sql, type SQL } from "drizzle-orm";
import { MAX_FOLDER_DEPTH } from "../../auth/access";
import { documentCollaborators, documents } from "../../db/schema";
import { inJson, rawSelect } from "../../db/sql";
import type { Db } from "../../env";
import { inSubtree, subtreeSql } from "./tree";

type DocumentRow = typeof documents.$inferSelect;

/** Ids from the document up to the root folder (the document included); their number is its depth + 1. */
export function ancestorsStatement(db: Db, id: string) {
  return rawSelect<{ id: string }>(
    db,
    ["id"],
    sql`WITH RECURSIVE up(id, parent_id, depth) AS (
      SELECT id, parent_id, 0 FROM documents WHERE id = ${id}
      UNION ALL
      SELECT d.id, d.parent_id, up.depth + 1 FROM documents d JOIN up ON d.id = up.parent_id WHERE up.depth < ${MAX_FOLDER_DEPTH * 4}
    ) SELECT id AS id FROM up`,
  );
}

/** One row: the depth of the deepest document below `rootId` (0 for a leaf). */
export function subtreeHeightStatement(db: Db, rootId: string) {
  return rawSelect<{ height: number | null }>(
    db,
    ["height"],
    sql`${subtreeSql(rootId)} SELECT MAX(depth) AS height FROM sub`,
  );
}

/** Ids of the live documents in the subtree of `rootId` (itself included when live). */
export function liveSubtreeStatement(db: Db, rootId: string) {
  return rawSelect<{ id: string }>(
    db,
    ["id"],
    sql`${subtreeSql(rootId)}
    SELECT sub.id AS id FROM sub JOIN documents d ON d.id = sub.id WHERE d.is_deleted = 0`,
  );
}

/** Batchable: the comment counts of the documents listed (or selected by `ids` as SQL), one row per commented one. */
export function commentCountsStatement(db: Db, ids: readonly string[] | SQL) {
  const of = Array.isArray(ids) ? sql`SELECT value FROM json_each(${JSON.stringify(ids)})` : (ids as SQL);
  return rawSelect<{ documentId: string; commentCount: number; openCommentCount: number }>(
    db,
    ["documentId", "commentCount", "openCommentCount"],
    sql`SELECT document_id AS "documentId", COUNT(*) AS "commentCount", COALESCE(SUM(status = 'open'), 0) AS "openCommentCount" FROM comments
      WHERE document_id IN (${of}) AND is_deleted = 0 GROUP BY document_id`,
  );
}

/** Batchable: the collaborators of the documents whose ids are listed (or selected by `ids` as SQL), oldest first. */
export function collaboratorsStatement(db: Db, ids: readonly string[] | SQL) {
  return db
    .select()
    .from(documentCollaborators)
    .where(
      Array.isArray(ids)
        ? inJson(documentCollaborators.documentId, ids as string[])
        : sql`${documentCollaborators.documentId} IN (${ids})`,
    )
    .orderBy(documentCollaborators.createdAt);
}

/**
 * Batchable: restores the root and what was deleted along with it (same deletedAt stamp), returning their ids.
 * A builder with the subtree as a subquery, so it rides in one batch with the reads that follow it.
 */
export function restoreSubtreeStatement(db: Db, root: DocumentRow, at: number) {
  return db
    .update(documents)
    .set({ isDeleted: false, deletedAt: null, updatedAt: at })
    .where(restoreSubtreeWhere(root))
    .returning({ id: documents.id });
}

/** Which documents a restore of `root` brings back: those deleted along with it (the change log names them too). */
export function restoreSubtreeWhere(root: DocumentRow) {
  return and(
    inSubtree(documents.id, root.id),
    eq(documents.isDeleted, true),
    root.deletedAt === null ? isNull(documents.deletedAt) : eq(documents.deletedAt, root.deletedAt),
  )!;
}
