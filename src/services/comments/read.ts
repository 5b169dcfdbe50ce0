/**
 * Reading comments (docs/api-guide.md › Comments): one comment, or a target's threads (root comments with their
 * replies), each in one D1 round trip with authentication and access.
 */
import { and, asc, eq, sql, type SQL } from "drizzle-orm";
import { commentReactions, comments } from "../../db/schema";
import { read, type ServiceContext } from "../context";
import { checkComment, checkTarget, commentStatements, newTargetStatements } from "./access";
import { commentDto, decodeThreadCursor, encodeThreadCursor, type CommentDto } from "./dto";

const reactionsWhere = (ctx: ServiceContext, commentIds: SQL) =>
  ctx.db
    .select({ commentId: commentReactions.commentId, emoji: commentReactions.emoji, userId: commentReactions.userId })
    .from(commentReactions)
    .where(sql`${commentReactions.commentId} IN (${commentIds})`)
    .orderBy(commentReactions.createdAt, commentReactions.userId);

/** GET /comment/{commentId}: a comment (a tombstone too) with read access to its target. */
export async function getComment(ctx: ServiceContext, input: { commentId: string }): Promise<CommentDto> {
  const [found, docs, wsRoles, docRoles, tableRows, liveRow, reactions] = await read(ctx, [
    ...commentStatements(ctx.db, ctx.user.ref, input.commentId),
    reactionsWhere(ctx, sql`SELECT ${input.commentId}`),
  ]);
  const { comment } = checkComment([found, docs, wsRoles, docRoles, tableRows, liveRow], "read");
  return commentDto(comment, reactions);
}

export interface ThreadQuery {
  status: "open" | "resolved" | "all";
  blockId?: string;
  cursor?: string;
  limit: number;
}

export type Thread = CommentDto & { replies: CommentDto[] };

/**
 * GET /document/{documentId}/comments and GET /table/row/{rowId}/comments: the target's threads, oldest first,
 * `limit` per page (keyset on the root's createdAt and id), each root with its replies oldest first.
 */
export async function listThreads(
  ctx: ServiceContext,
  input: { target: { documentId: string } | { rowId: string } } & ThreadQuery,
): Promise<{ data: Thread[]; nextCursor: string | null }> {
  const after = input.cursor ? decodeThreadCursor(input.cursor) : { createdAt: -1, id: "" };
  const onTarget =
    "documentId" in input.target
      ? eq(comments.documentId, input.target.documentId)
      : eq(comments.rowId, input.target.rowId);
  const rootsWhere = and(
    onTarget,
    sql`${comments.parentId} IS NULL`,
    input.status === "all" ? undefined : eq(comments.status, input.status),
    input.blockId === undefined ? undefined : eq(comments.blockId, input.blockId),
    sql`(${comments.createdAt}, ${comments.id}) > (${after.createdAt}, ${after.id})`,
  );
  const rootIds = sql`SELECT id FROM comments WHERE ${rootsWhere} ORDER BY created_at, id LIMIT ${input.limit + 1}`;
  const [docs, wsRoles, docRoles, tableRows, liveRow, , roots, replies, reactions] = await read(ctx, [
    ...newTargetStatements(ctx.db, ctx.user.ref, input.target),
    ctx.db
      .select()
      .from(comments)
      .where(rootsWhere)
      .orderBy(asc(comments.createdAt), asc(comments.id))
      .limit(input.limit + 1),
    ctx.db
      .select()
      .from(comments)
      .where(and(sql`${comments.threadId} IN (${rootIds})`, sql`${comments.parentId} IS NOT NULL`))
      .orderBy(asc(comments.createdAt), asc(comments.id)),
    reactionsWhere(ctx, sql`SELECT id FROM comments WHERE thread_id IN (${rootIds})`),
  ]);
  const target = input.target;
  checkTarget(
    [docs, wsRoles, docRoles, tableRows, liveRow],
    { documentId: "documentId" in target ? target.documentId : null, rowId: "rowId" in target ? target.rowId : null },
    "read",
    "documentId" in target ? "Document" : "Row",
  );
  const more = roots.length > input.limit;
  const page = more ? roots.slice(0, input.limit) : roots;
  const last = page[page.length - 1];
  return {
    data: page.map((root) => ({
      ...commentDto(root, reactions),
      replies: replies.filter((r) => r.threadId === root.id).map((r) => commentDto(r, reactions)),
    })),
    nextCursor: more && last ? encodeThreadCursor(last.createdAt, last.id) : null,
  };
}
