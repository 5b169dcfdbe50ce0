/**
 * Comments' shapes (docs/api-guide.md › Comments): the DTO a comment answers as, the mentions a body names, the
 * thread cursor of listings.
 */
import { comments, commentReactions } from "../../db/schema";
import { textFromBase64Url, textToBase64Url } from "../../lib/base64";
import { ID_PATTERN } from "../../lib/ids";
import { validation } from "../../errors";

export type CommentRow = typeof comments.$inferSelect;
export type ReactionRow = Pick<typeof commentReactions.$inferSelect, "commentId" | "emoji" | "userId">;

/** At most this many characters of Markdown in a body. */
export const MAX_COMMENT_BODY = 10_000;
/** Mentions past this many in one body are not notified (nor reported). */
export const MAX_MENTIONS = 50;

/** The user ids `@[userId]` names in a body, once each, in order of first mention. */
export function mentionsOf(body: string): string[] {
  const out = new Set<string>();
  for (const m of body.matchAll(/@\[([A-Za-z0-9_-]{1,64})\]/g)) {
    out.add(m[1]!);
    if (out.size >= MAX_MENTIONS) break;
  }
  return [...out];
}

/** Reactions grouped by emoji, each with its users, emojis in the order first used. */
function reactionsOf(rows: readonly ReactionRow[], commentId: string) {
  const byEmoji = new Map<string, string[]>();
  for (const r of rows) {
    if (r.commentId !== commentId) continue;
    byEmoji.set(r.emoji, [...(byEmoji.get(r.emoji) ?? []), r.userId]);
  }
  return [...byEmoji].map(([emoji, userIds]) => ({ emoji, userIds }));
}

export function commentDto(row: CommentRow, reactions: readonly ReactionRow[]) {
  const target = row.documentId
    ? {
        documentId: row.documentId,
        anchor: row.blockId
          ? { blockId: row.blockId, start: row.anchorStart ?? undefined, end: row.anchorEnd ?? undefined }
          : undefined,
      }
    : { rowId: row.rowId ?? undefined, tableId: row.tableId ?? undefined, columnId: row.columnId ?? undefined };
  return {
    _id: row.id,
    threadId: row.threadId,
    parentId: row.parentId,
    target,
    authorId: row.authorId,
    body: row.isDeleted ? "" : row.body,
    createdAt: row.createdAt,
    updatedAt: row.updatedAt,
    editedAt: row.editedAt,
    isDeleted: row.isDeleted,
    status: row.status,
    resolvedBy: row.resolvedBy,
    resolvedAt: row.resolvedAt,
    reactions: row.isDeleted ? [] : reactionsOf(reactions, row.id),
    mentions: row.isDeleted ? [] : row.mentions,
    detached: row.detached,
  };
}

export type CommentDto = ReturnType<typeof commentDto>;

/** Threads are listed oldest first, keyset-paged on the root's (createdAt, id). */
export function encodeThreadCursor(createdAt: number, id: string): string {
  return textToBase64Url(`${createdAt}:${id}`);
}

export function decodeThreadCursor(cursor: string): { createdAt: number; id: string } {
  const m = /^(\d{1,15}):(.+)$/.exec(textFromBase64Url(cursor) ?? "");
  if (!m || !ID_PATTERN.test(m[2]!))
    throw validation("cursor is not a cursor this listing returned", [{ path: "cursor", message: "invalid cursor" }]);
  return { createdAt: Number(m[1]), id: m[2]! };
}
