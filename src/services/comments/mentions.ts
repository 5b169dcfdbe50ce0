/**
 * Mentions (docs/api-guide.md › Comments): `@[userId]` notifies that user through the notification outbox when
 * they can read the comment's target, once per comment; the others are answered to the author as `unnotified`,
 * whether or not they exist.
 */
import { sql, type SQL } from "drizzle-orm";
import { MAX_FOLDER_DEPTH, projectReadableBy } from "../../auth/access";
import { rawSelect } from "../../db/sql";
import type { Db } from "../../env";
import { noticeId, outboxNotices, type Notice } from "../notifications/outbox";
import type { CommentRow } from "./dto";

/**
 * Batchable: which of `userIds` can read a comment's target, in one statement whatever their number: the document
 * read rule when `documentId` (SQL, may yield NULL) names one, else the project read rule on `projectId`.
 */
export function mentionReadersStatement(
  db: Db,
  target: { documentId: SQL; projectId: SQL },
  userIds: readonly string[],
) {
  return rawSelect<{ id: string }>(
    db,
    ["id"],
    sql`WITH RECURSIVE chain(id, parent_id, depth) AS (
        SELECT d.id, d.parent_id, 0 FROM documents d WHERE d.id = ${target.documentId}
        UNION ALL
        SELECT d.id, d.parent_id, c.depth + 1 FROM documents d JOIN chain c ON d.id = c.parent_id
        WHERE c.depth < ${MAX_FOLDER_DEPTH + 1}
      )
      SELECT u.value AS id FROM json_each(${JSON.stringify(userIds)}) u
      WHERE CASE WHEN ${target.documentId} IS NOT NULL THEN
          EXISTS (SELECT 1 FROM workspace_collaborators wc JOIN documents d ON d.workspace_id = wc.workspace_id
            WHERE d.id = ${target.documentId} AND wc.user_id = u.value)
          OR EXISTS (SELECT 1 FROM chain c JOIN document_collaborators dc ON dc.document_id = c.id AND dc.user_id = u.value)
        ELSE ${projectReadableBy(sql`u.value`, target.projectId)} END`,
  );
}

/** Mentioned users other than the author: readers get a notice, the rest are `unnotified`. */
export function splitMentions(comment: CommentRow, readers: readonly { id: string }[]) {
  const canRead = new Set(readers.map((r) => r.id));
  const others = comment.mentions.filter((u) => u !== comment.authorId);
  return { notify: others.filter((u) => canRead.has(u)), unnotified: others.filter((u) => !canRead.has(u)) };
}

/**
 * The outbox insert of the mention notices of `comment` (one per user and comment: a later edit naming them again
 * finds its id taken). `invitedBy` names the sender, so the per-sender limit of sharing notices applies.
 */
export function mentionNotices(db: Db, comment: CommentRow, userIds: readonly string[], at: number) {
  const notices: Notice[] = userIds.map((userId) => ({
    id: noticeId(comment.id, `mention:${userId}`),
    userId,
    kind: "comment.mention",
    title: "You were mentioned in a comment",
    body: comment.body.slice(0, 200),
    data: {
      commentId: comment.id,
      threadId: comment.threadId,
      ...(comment.documentId ? { documentId: comment.documentId } : { rowId: comment.rowId, tableId: comment.tableId }),
      invitedBy: comment.authorId,
    },
    createdAt: at,
  }));
  return outboxNotices(db, notices, at);
}
