import { documentCollaborators, documents } from "../../db/schema";
import type { Db } from "../../env";
import { inJson, rawSelect } from "../../db/sql";
import { sql, type SQL } from "drizzle-orm";

type Collaborator = { userId: string; role: string };

/** A document's live comments and those in open threads (docs/api-guide.md › Comments). */
export interface CommentCounts {
  commentCount: number;
  openCommentCount: number;
}

/** A new document's counts. */
export const NO_COMMENTS: CommentCounts = { commentCount: 0, openCommentCount: 0 };

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

/** The counts of `documentId` among the rows of commentCountsStatement. */
export function countsOf(
  rows: readonly { documentId: string; commentCount: number; openCommentCount: number }[],
  documentId: string,
): CommentCounts {
  const r = rows.find((x) => x.documentId === documentId);
  return r ? { commentCount: r.commentCount, openCommentCount: r.openCommentCount } : NO_COMMENTS;
}

export function documentDto(
  row: typeof documents.$inferSelect,
  collaborators: Collaborator[],
  counts: CommentCounts = NO_COMMENTS,
) {
  return {
    _id: row.id,
    parentId: row.parentId,
    projectId: row.projectId,
    userId: row.userId,
    workspaceId: row.workspaceId,
    name: row.name,
    type: row.type,
    createdAt: row.createdAt,
    updatedAt: row.updatedAt,
    description: row.description,
    reference: row.reference,
    order: row.order,
    isPublished: row.isPublished,
    publishedSettings: row.publishedSettings ?? null,
    external: row.external ?? null,
    icon: row.icon ?? null,
    emoji: row.emoji ?? null,
    collaborators,
    isDeleted: row.isDeleted,
    commentCount: counts.commentCount,
    openCommentCount: counts.openCommentCount,
  };
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

export function groupCollaborators(rows: (typeof documentCollaborators.$inferSelect)[]): Map<string, Collaborator[]> {
  const out = new Map<string, Collaborator[]>();
  for (const r of rows) {
    const list = out.get(r.documentId) ?? [];
    list.push({ userId: r.userId, role: r.role });
    out.set(r.documentId, list);
  }
  return out;
}
