import { sqliteTable, text, integer, index, primaryKey } from "drizzle-orm/sqlite-core";

export interface ChangeActor {
  type: "user" | "automation" | "portal" | "system";
  userId?: string;
  tokenId?: string;
  runId?: string;
}
export type ChangeSource = "api" | "automation" | "room" | "import" | "restore";
export type CellChanges = Record<string, { before: unknown; after: unknown; derived?: boolean }>;

/**
 * The change log (docs/api-guide.md › Changes, history and audit): one entry per changed record, appended in the
 * same D1 batch as the write it records (src/services/changes/log.ts). `seq` is MAX(seq) + 1 of this database,
 * evaluated inside the inserting statement on the D1 primary, which runs writes one at a time, so it follows commit
 * order. A move of a logical shard copies the entries with their `seq`; entries written on the new database after it
 * are numbered above every copied one, so a feed cursor `(seq, record_id)` stays valid across the move.
 */
export const changeLog = sqliteTable(
  "change_log",
  {
    seq: integer("seq").notNull(),
    recordId: text("record_id").notNull(),
    at: integer("at").notNull(),
    kind: text("kind").notNull(),
    organizationId: text("organization_id").notNull(),
    workspaceId: text("workspace_id").notNull(),
    projectId: text("project_id"),
    tableId: text("table_id"),
    /** `{ type, userId?, tokenId?, runId? }` as JSON. */
    actor: text("actor", { mode: "json" }).$type<ChangeActor>().notNull(),
    source: text("source").$type<ChangeSource>().notNull(),
    /** `{ [columnId or field]: { before, after, derived? } }`; null for a tombstone. */
    changes: text("changes", { mode: "json" }).$type<CellChanges | null>(),
  },
  (t) => [
    primaryKey({ columns: [t.seq, t.recordId] }),
    index("change_log_workspace_idx").on(t.workspaceId, t.seq, t.recordId),
    index("change_log_project_idx").on(t.projectId, t.seq, t.recordId),
    index("change_log_table_idx").on(t.tableId, t.seq, t.recordId),
    index("change_log_record_idx").on(t.recordId, t.seq),
    index("change_log_at_idx").on(t.at),
    // The organization's audit log reads its change-log entries newest first (src/services/audit/read.ts): by this
    // index it walks that organization's entries alone, not every organization's of the shard since a time.
    index("change_log_organization_idx").on(t.organizationId, t.at, t.seq, t.recordId),
  ],
);

/**
 * Large cell writes' entries, staged (src/services/changes/staged.ts): a bulk write of many cells records, in its own
 * batch, ONE row here with each cell's row, column, stored value before and value after, and the range of sequence
 * numbers its entries will take (`seq_start` + 1 … `seq_end`, reserved: every other entry of the database is
 * numbered above it). Deleting the row folds it into `change_log` (the trigger `change_log_staged_fold`, written by
 * hand in its migration): one `row.updated` entry per row whose values changed, exactly as the write would have
 * appended them. The write's after-response work, every reader of the log (in its read batch) and the minute's
 * upkeep fold what is staged, so no reader sees an entry numbered after one still staged.
 */
export const changeLogStaged = sqliteTable("change_log_staged", {
  id: text("id").primaryKey(),
  seqStart: integer("seq_start").notNull(),
  seqEnd: integer("seq_end").notNull(),
  at: integer("at").notNull(),
  kind: text("kind").notNull(),
  organizationId: text("organization_id").notNull(),
  workspaceId: text("workspace_id").notNull(),
  projectId: text("project_id"),
  tableId: text("table_id"),
  actor: text("actor").notNull(),
  source: text("source").notNull(),
  /**
   * `row.updated`: `[[cellId, rowId, columnId, isIdentifier, after (JSON), before (stored JSON text) | null], …]`;
   * `row.created`: `[[rowId, changes], …]`; in the write's order.
   */
  cells: text("cells").notNull(),
});
