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
