/**
 * The change-log entries of comment writes (docs/api-guide.md › Changes, history and audit): one `comment.*` entry
 * per write, in the write's own batch, on the comment's target (its workspace, project and, for a row, table).
 * Each entry is guarded in SQL so a write that changes nothing records nothing.
 */
import { sql } from "drizzle-orm";
import type { ServiceContext } from "../context";
import { placedEntryQuery } from "../changes/log";
import type { CellChanges } from "../../db/schema/changes";
import type { CommentRow } from "./dto";

/** After the insert: `comment.created` with its body (and the comment it answers) as `after`. */
export function createdEntry(ctx: ServiceContext, row: CommentRow) {
  const changes: CellChanges = { body: { before: null, after: row.body } };
  if (row.parentId) changes.parentId = { before: null, after: row.parentId };
  return placedEntryQuery(
    ctx,
    "comment.created",
    row,
    changes,
    sql`EXISTS (SELECT 1 FROM comments WHERE id = ${row.id})`,
  );
}

/** Before the update: `comment.updated` with the body as read and the new one, when the stored body differs. */
export function editedEntry(ctx: ServiceContext, before: CommentRow, body: string) {
  const changes = { body: { before: before.body, after: body } };
  const differs = sql`EXISTS (SELECT 1 FROM comments WHERE id = ${before.id} AND is_deleted = 0 AND body IS NOT ${body})`;
  return placedEntryQuery(ctx, "comment.updated", before, changes, differs);
}

/** Before the tombstone: `comment.deleted` (the body is not copied into the log again), unless already deleted. */
export function deletedEntry(ctx: ServiceContext, before: CommentRow) {
  const changes = { isDeleted: { before: false, after: true } };
  const live = sql`EXISTS (SELECT 1 FROM comments WHERE id = ${before.id} AND is_deleted = 0)`;
  return placedEntryQuery(ctx, "comment.deleted", before, changes, live);
}

/** Before the status update: `comment.resolved` or `comment.reopened` on the thread's root, when its status changes. */
export function statusEntry(ctx: ServiceContext, comment: CommentRow, status: "open" | "resolved") {
  const root = { ...comment, id: comment.threadId };
  const changes = { status: { before: status === "open" ? "resolved" : "open", after: status } };
  const differs = sql`EXISTS (SELECT 1 FROM comments WHERE id = ${root.id} AND status IS NOT ${status})`;
  return placedEntryQuery(ctx, status === "resolved" ? "comment.resolved" : "comment.reopened", root, changes, differs);
}

/** Before the reaction's insert or delete: `comment.updated` with the caller's reaction, when it is set or taken back. */
export function reactionEntry(ctx: ServiceContext, comment: CommentRow, emoji: string, on: boolean) {
  const reaction = { emoji, userId: ctx.user.id };
  const changes = { reactions: on ? { before: null, after: reaction } : { before: reaction, after: null } };
  const held = sql`EXISTS (SELECT 1 FROM comment_reactions WHERE comment_id = ${comment.id} AND emoji = ${emoji} AND user_id = ${ctx.user.id})`;
  return placedEntryQuery(ctx, "comment.updated", comment, changes, on ? sql`NOT ${held}` : held);
}
