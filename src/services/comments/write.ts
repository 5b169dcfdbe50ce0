/**
 * Writing comments (docs/api-guide.md › Comments): a thread on a document or a row, replies, edits by the author,
 * tombstones, resolve and reopen. Each verb reads the target's access, the comment and the mentioned users'
 * access in one batch (with authentication), writes in one batch with its kept answer and its mention notices,
 * then delivers the notices (a third round trip, only when there are some).
 */
import { eq, sql, type SQL } from "drizzle-orm";
import { commentReactions, comments } from "../../db/schema";
import { conflict, forbidden, notFound } from "../../errors";
import { read, type ServiceContext } from "../context";
import { keptAnswerUpdates } from "../idempotency";
import { commentEvent, emitAfterResponse } from "../events/events";
import { deliverBeforeAnswer, type OutboxRow } from "../notifications/outbox";
import { checkComment, checkTarget, commentStatements, newTargetStatements, type TargetAccess } from "./access";
import { commentDto, mentionsOf, type CommentRow, type ReactionRow } from "./dto";
import { mentionNotices, mentionReadersStatement, splitMentions } from "./mentions";
import { liveRoomOf, tellRoom, type ThreadChange, type WrittenChange } from "./room";
import { createdEntry, deletedEntry, editedEntry, reactionEntry, statusEntry } from "./changeLog";

export type NewTarget =
  | { documentId: string; anchor?: { blockId: string; start?: number; end?: number } }
  | { rowId: string; columnId?: string };

/** The comment's own column of a comment, as SQL (for statements that ride before it is read). */
const ofComment = (commentId: string, column: string) =>
  sql.raw(`(SELECT ${column} FROM comments WHERE id = `).append(sql`${commentId})`);

const reactionsOfThread = (ctx: ServiceContext, threadId: string | SQL) =>
  ctx.db
    .select({ commentId: commentReactions.commentId, emoji: commentReactions.emoji, userId: commentReactions.userId })
    .from(commentReactions)
    .where(sql`${commentReactions.commentId} IN (SELECT id FROM comments WHERE thread_id = ${threadId})`)
    .orderBy(commentReactions.createdAt, commentReactions.userId);

/** After a write: the events, and the document's room told when it has connected clients. */
function afterWrite(
  ctx: ServiceContext,
  target: TargetAccess,
  change: ThreadChange & { change: WrittenChange },
  live: readonly { documentId: string }[],
) {
  emitAfterResponse(ctx, [commentEvent(`comment.${change.change}`, target, target.documentIds)]);
  if (target.documentId && live.length) tellRoom(ctx, target.documentId, change);
}

/** A batch's statements (the change-log entries make its length vary, so drizzle cannot type it as a tuple). */
type Batch = Parameters<ServiceContext["db"]["batch"]>[0];
type BatchItem = Batch[number];

/**
 * Inserts or updates `row` (with its change-log entry, `writes`) with its mention notices and kept answer in one
 * batch, then delivers the notices. Answers the comment with `unnotified`.
 */
async function writeWithMentions(
  ctx: ServiceContext,
  row: CommentRow,
  writes: readonly BatchItem[],
  readers: readonly { id: string }[],
  reactions: readonly ReactionRow[],
) {
  const { notify, unnotified } = splitMentions(row, readers);
  const dto = { ...commentDto(row, reactions), unnotified };
  const notices = notify.length ? [mentionNotices(ctx.db, row, notify, ctx.now)] : [];
  const results = (await ctx.db.batch([
    ...writes,
    ...notices,
    ...(await keptAnswerUpdates(ctx, { payload: { data: dto } })),
  ] as unknown as Batch)) as readonly unknown[];
  if (notices.length) await deliverBeforeAnswer(ctx, results[writes.length] as OutboxRow[]);
  return dto;
}

/** POST /document/{documentId}/comment and POST /table/row/{rowId}/comment: a new thread. */
export async function createThread(ctx: ServiceContext, input: { target: NewTarget; body: string }) {
  const mentions = mentionsOf(input.body);
  const t = input.target;
  const docId = "documentId" in t ? t.documentId : null;
  const rowId = "rowId" in t ? t.rowId : null;
  const [docs, wsRoles, docRoles, tableRows, liveRow, column, readers, live] = await read(ctx, [
    ...newTargetStatements(ctx.db, ctx.user.ref, t),
    mentionReadersStatement(
      ctx.db,
      { documentId: sql`${docId}`, projectId: sql`(SELECT project_id FROM rows WHERE id = ${rowId})` },
      mentions,
    ),
    liveRoomOf(ctx.db, docId),
  ]);
  const target = checkTarget(
    [docs, wsRoles, docRoles, tableRows, liveRow],
    { documentId: docId, rowId },
    "comment",
    docId ? "Document" : "Row",
  );
  const columnId = "columnId" in t ? (t.columnId ?? null) : null;
  if (columnId && column.length === 0) throw notFound("Column");
  const id = ctx.ids.beside(target.documentId ?? target.rowId!);
  const anchor = "anchor" in t ? t.anchor : undefined;
  const row: CommentRow = {
    id,
    workspaceId: target.workspaceId,
    projectId: target.projectId,
    documentId: target.documentId,
    tableId: target.tableId,
    rowId: target.rowId,
    columnId,
    blockId: anchor?.blockId ?? null,
    anchorStart: anchor?.start ?? null,
    anchorEnd: anchor?.end ?? null,
    threadId: id,
    parentId: null,
    authorId: ctx.user.id,
    body: input.body,
    mentions,
    status: "open",
    resolvedBy: null,
    resolvedAt: null,
    detached: false,
    isDeleted: false,
    editedAt: null,
    createdAt: ctx.now,
    updatedAt: ctx.now,
  };
  const writes = [ctx.db.insert(comments).values(row), ...createdEntry(ctx, row)];
  const dto = await writeWithMentions(ctx, row, writes, readers, []);
  afterWrite(ctx, target, { change: "created", threadId: id, commentId: id }, live);
  return dto;
}

/** The comment, its target's access at `level`, the readers among `mentions` and the document's live room. */
async function loadForWrite(ctx: ServiceContext, commentId: string, level: "read" | "comment", mentions: string[]) {
  const [found, docs, wsRoles, docRoles, tableRows, liveRow, readers, live, reactions] = await read(ctx, [
    ...commentStatements(ctx.db, ctx.user.ref, commentId),
    mentionReadersStatement(
      ctx.db,
      { documentId: ofComment(commentId, "document_id"), projectId: ofComment(commentId, "project_id") },
      mentions,
    ),
    liveRoomOf(ctx.db, ofComment(commentId, "document_id")),
    reactionsOfThread(ctx, ofComment(commentId, "thread_id")),
  ]);
  const { comment, target } = checkComment([found, docs, wsRoles, docRoles, tableRows, liveRow], level);
  return { comment, target, readers, live, reactions };
}

/** POST /comment/{commentId}/reply: a reply in the comment's thread. */
export async function replyToComment(ctx: ServiceContext, input: { commentId: string; body: string }) {
  const mentions = mentionsOf(input.body);
  const { comment: parent, target, readers, live } = await loadForWrite(ctx, input.commentId, "comment", mentions);
  const id = ctx.ids.beside(parent.id);
  const row: CommentRow = {
    ...parent,
    id,
    parentId: parent.id,
    authorId: ctx.user.id,
    body: input.body,
    mentions,
    isDeleted: false,
    editedAt: null,
    createdAt: ctx.now,
    updatedAt: ctx.now,
  };
  const writes = [ctx.db.insert(comments).values(row), ...createdEntry(ctx, row)];
  const dto = await writeWithMentions(ctx, row, writes, readers, []);
  afterWrite(ctx, target, { change: "created", threadId: row.threadId, commentId: id }, live);
  return dto;
}

/** PATCH /comment/{commentId}: the author edits the body (`editedAt`); a tombstone cannot be edited (409). */
export async function updateComment(ctx: ServiceContext, input: { commentId: string; body: string }) {
  const mentions = mentionsOf(input.body);
  const loaded = await loadForWrite(ctx, input.commentId, "read", mentions);
  const { comment, target, readers, live, reactions } = loaded;
  if (comment.authorId !== ctx.user.id) throw forbidden("Only the author of a comment may edit it");
  if (comment.isDeleted) throw conflict("This comment was deleted");
  const row: CommentRow = { ...comment, body: input.body, mentions, editedAt: ctx.now, updatedAt: ctx.now };
  const write = ctx.db
    .update(comments)
    .set({ body: row.body, mentions, editedAt: ctx.now, updatedAt: ctx.now })
    .where(eq(comments.id, comment.id));
  const dto = await writeWithMentions(ctx, row, [...editedEntry(ctx, comment, input.body), write], readers, reactions);
  afterWrite(ctx, target, { change: "updated", threadId: row.threadId, commentId: row.id }, live);
  return dto;
}

/** DELETE /comment/{commentId}: the author or a project admin leaves a tombstone (its reactions go with the body). */
export async function deleteComment(ctx: ServiceContext, input: { commentId: string }) {
  const { comment, target, live } = await loadForWrite(ctx, input.commentId, "read", []);
  if (comment.authorId !== ctx.user.id && !target.projectAdmin)
    throw forbidden("Only the author of a comment or a project admin may delete it");
  const row: CommentRow = { ...comment, isDeleted: true, body: "", mentions: [], updatedAt: ctx.now };
  if (comment.isDeleted) return commentDto(row, []);
  await ctx.db.batch([
    ...deletedEntry(ctx, comment),
    ctx.db
      .update(comments)
      .set({ isDeleted: true, body: "", mentions: [], updatedAt: ctx.now })
      .where(eq(comments.id, comment.id)),
    ctx.db.delete(commentReactions).where(eq(commentReactions.commentId, comment.id)),
  ] as unknown as Batch);
  afterWrite(ctx, target, { change: "deleted", threadId: row.threadId, commentId: row.id }, live);
  return commentDto(row, []);
}

/** POST /comment/{commentId}/resolve|reopen: any commenter sets the thread's status; answers its root comment. */
export async function setThreadStatus(ctx: ServiceContext, input: { commentId: string; status: "open" | "resolved" }) {
  const { comment, target, live } = await loadForWrite(ctx, input.commentId, "comment", []);
  const resolved = input.status === "resolved";
  const log = statusEntry(ctx, comment, input.status);
  const results = await ctx.db.batch([
    ...log,
    ctx.db
      .update(comments)
      .set({
        status: input.status,
        resolvedBy: resolved ? ctx.user.id : null,
        resolvedAt: resolved ? ctx.now : null,
        updatedAt: ctx.now,
      })
      .where(eq(comments.threadId, comment.threadId))
      .returning(),
    reactionsOfThread(ctx, comment.threadId),
  ] as unknown as Batch);
  const [updated, reactions] = results.slice(-2) as [CommentRow[], ReactionRow[]];
  const root = updated.find((r) => r.id === comment.threadId) ?? comment;
  const change = resolved ? "resolved" : "reopened";
  afterWrite(ctx, target, { change, threadId: root.threadId, commentId: root.id }, live);
  return commentDto(root, reactions);
}

/** PUT|DELETE /comment/{commentId}/reaction/{emoji}: the caller's reaction, set or taken back (commenters). */
export async function setReaction(ctx: ServiceContext, input: { commentId: string; emoji: string; on: boolean }) {
  const { comment, target, live } = await loadForWrite(ctx, input.commentId, "comment", []);
  if (comment.isDeleted) throw conflict("This comment was deleted");
  const mine = sql`${commentReactions.commentId} = ${comment.id} AND ${commentReactions.emoji} = ${input.emoji} AND ${commentReactions.userId} = ${ctx.user.id}`;
  const log = reactionEntry(ctx, comment, input.emoji, input.on);
  const results = await ctx.db.batch([
    ...log,
    input.on
      ? ctx.db
          .insert(commentReactions)
          .values({ commentId: comment.id, emoji: input.emoji, userId: ctx.user.id, createdAt: ctx.now })
          .onConflictDoNothing()
      : ctx.db.delete(commentReactions).where(mine),
    reactionsOfThread(ctx, comment.threadId),
  ] as unknown as Batch);
  const reactions = results.at(-1) as ReactionRow[];
  afterWrite(ctx, target, { change: "updated", threadId: comment.threadId, commentId: comment.id }, live);
  return commentDto(comment, reactions);
}
