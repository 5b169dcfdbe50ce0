import { sqliteTable, text, integer, index, primaryKey } from "drizzle-orm/sqlite-core";
import { users } from "./identity";
import { projects, workspaces } from "./workspaces";

/**
 * Comments (docs/api-guide.md › Comments): a thread is its root comment (`thread_id = id`, `parent_id` null) and the
 * replies that name it. The target is a document (`document_id`, optionally a block and a range in it) or a row
 * (`row_id`, `table_id`, optionally a column). A deleted comment stays as a tombstone (`is_deleted`, empty body).
 */
export const comments = sqliteTable(
  "comments",
  {
    id: text("id").primaryKey(),
    workspaceId: text("workspace_id")
      .notNull()
      .references(() => workspaces.id),
    projectId: text("project_id")
      .notNull()
      .references(() => projects.id),
    documentId: text("document_id"),
    tableId: text("table_id"),
    rowId: text("row_id"),
    columnId: text("column_id"),
    blockId: text("block_id"),
    anchorStart: integer("anchor_start"),
    anchorEnd: integer("anchor_end"),
    threadId: text("thread_id").notNull(),
    parentId: text("parent_id"),
    authorId: text("author_id")
      .notNull()
      .references(() => users.id),
    body: text("body").notNull(),
    mentions: text("mentions", { mode: "json" }).$type<string[]>().notNull(),
    /** Thread status, kept on the root comment (replies carry their thread's). */
    status: text("status", { enum: ["open", "resolved"] }).notNull(),
    resolvedBy: text("resolved_by"),
    resolvedAt: integer("resolved_at"),
    /** The anchor block is no longer in the document (services/content marks it on every content write). */
    detached: integer("detached", { mode: "boolean" }).notNull().default(false),
    isDeleted: integer("is_deleted", { mode: "boolean" }).notNull().default(false),
    editedAt: integer("edited_at"),
    createdAt: integer("created_at").notNull(),
    updatedAt: integer("updated_at").notNull(),
  },
  (t) => [
    index("comments_document_idx").on(t.documentId, t.threadId),
    index("comments_row_idx").on(t.rowId, t.threadId),
    index("comments_thread_idx").on(t.threadId),
  ],
);

/** One user's reaction with one emoji on one comment. */
export const commentReactions = sqliteTable(
  "comment_reactions",
  {
    commentId: text("comment_id").notNull(),
    emoji: text("emoji").notNull(),
    userId: text("user_id")
      .notNull()
      .references(() => users.id),
    createdAt: integer("created_at").notNull(),
  },
  (t) => [primaryKey({ columns: [t.commentId, t.emoji, t.userId] })],
);
