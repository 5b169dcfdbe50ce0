import { documentCollaborators, documents } from "../../db/schema";

type Collaborator = { userId: string; role: string };

/** A document's live comments and those in open threads (docs/api-guide.md › Comments). */
export interface CommentCounts {
  commentCount: number;
  openCommentCount: number;
}

/** A new document's counts. */
export const NO_COMMENTS: CommentCounts = { commentCount: 0, openCommentCount: 0 };

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

export function groupCollaborators(rows: (typeof documentCollaborators.$inferSelect)[]): Map<string, Collaborator[]> {
  const out = new Map<string, Collaborator[]>();
  for (const r of rows) {
    const list = out.get(r.documentId) ?? [];
    list.push({ userId: r.userId, role: r.role });
    out.set(r.documentId, list);
  }
  return out;
}
