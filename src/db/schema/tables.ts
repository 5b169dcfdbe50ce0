import { sql } from "drizzle-orm";
import { sqliteTable, text, integer, index, uniqueIndex } from "drizzle-orm/sqlite-core";
import { users } from "./identity";
import { projects, workspaces } from "./workspaces";
import { documents } from "./documents";

export const tables = sqliteTable(
  "tables",
  {
    id: text("id").primaryKey(),
    projectId: text("project_id")
      .notNull()
      .references(() => projects.id),
    workspaceId: text("workspace_id")
      .notNull()
      .references(() => workspaces.id),
    documentId: text("document_id").references(() => documents.id),
    userId: text("user_id")
      .notNull()
      .references(() => users.id),
    name: text("name").notNull(),
    isDeleted: integer("is_deleted", { mode: "boolean" }).notNull().default(false),
    createdAt: integer("created_at").notNull(),
    updatedAt: integer("updated_at").notNull(),
    /**
     * Until when a formula apply may be computing the table's cells from its rows in its formula coordinator
     * (src/services/formula/engine.ts sets it before reading any row). A write to a table with no formula, no table
     * looking into it and this in the past needs no recomputation (src/services/tables/recompute.ts,
     * computeNeededStatement). A lookups recompute needs no mark: it computes formula columns, which send every
     * write of the table through the coordinator already.
     */
    formulaBusyUntil: integer("formula_busy_until").notNull().default(0),
  },
  (t) => [index("tables_project_idx").on(t.projectId, t.isDeleted, t.id)],
);

/** `data` holds the type and its options (docs/api-guide.md › Tables, columns, rows, cells); `formula` the validated compiled tree of a formula column (docs/api-guide.md › Formulas). */
export const columns = sqliteTable(
  "columns",
  {
    id: text("id").primaryKey(),
    tableId: text("table_id")
      .notNull()
      .references(() => tables.id),
    projectId: text("project_id")
      .notNull()
      .references(() => projects.id),
    workspaceId: text("workspace_id")
      .notNull()
      .references(() => workspaces.id),
    name: text("name").notNull(),
    slug: text("slug").notNull(),
    originId: text("origin_id").notNull().default(""),
    description: text("description").notNull().default(""),
    isIdentifier: integer("is_identifier", { mode: "boolean" }).notNull().default(false),
    data: text("data", { mode: "json" }).$type<Record<string, unknown> & { type: string }>().notNull(),
    formula: text("formula", { mode: "json" }).$type<{ expression: unknown; description: unknown[] } | null>(),
    isDeleted: integer("is_deleted", { mode: "boolean" }).notNull().default(false),
    createdAt: integer("created_at").notNull(),
    updatedAt: integer("updated_at").notNull(),
  },
  (t) => [
    uniqueIndex("columns_table_slug_uq").on(t.tableId, t.slug),
    index("columns_table_idx").on(t.tableId, t.isDeleted, t.id),
    /**
     * Live relations by the table they link to: which tables' lookups read a table is an indexed read
     * (src/services/formula/store.ts, DEPENDENT_TABLES; migrations/0011). Relations are few, so the index is small.
     */
    index("columns_link_target_idx")
      .on(sql`json_extract(${t.data}, '$.oneMany.tableId')`)
      .where(sql`${t.isDeleted} = 0 AND json_extract(${t.data}, '$.type') = 'oneMany'`),
  ],
);

/**
 * Listing order and the paging cursor are `(seq, id)`. `seq` is assigned inside the insert statement itself
 * (MAX(seq) + 1 of the table, evaluated on the D1 primary, which runs writes one at a time), so it follows
 * commit order. Row ids are ULIDs minted at the edge: two isolates can commit out of id order, and a keyset on
 * the id alone could then skip a row committed behind a cursor already handed out.
 */
export const rows = sqliteTable(
  "rows",
  {
    id: text("id").primaryKey(),
    tableId: text("table_id")
      .notNull()
      .references(() => tables.id),
    projectId: text("project_id")
      .notNull()
      .references(() => projects.id),
    workspaceId: text("workspace_id")
      .notNull()
      .references(() => workspaces.id),
    ownerId: text("owner_id")
      .notNull()
      .references(() => users.id),
    originId: text("origin_id").notNull().default(""),
    /** Per-table commit-order sequence (see above); 0 only for rows written outside services/tables. */
    seq: integer("seq").notNull().default(0),
    isDeleted: integer("is_deleted", { mode: "boolean" }).notNull().default(false),
    createdAt: integer("created_at").notNull(),
    updatedAt: integer("updated_at").notNull(),
  },
  (t) => [
    index("rows_table_idx").on(t.tableId, t.isDeleted, t.id),
    index("rows_table_seq_idx").on(t.tableId, t.seq, t.id),
    /** Rows a CSV import staged, by age: the sweep of abandoned imports (src/services/tableCsv/sweep.ts). */
    index("rows_staged_idx")
      .on(t.createdAt)
      .where(sql`${t.isDeleted} = 1 AND ${t.originId} LIKE 'csv-import:%'`),
  ],
);

export const cells = sqliteTable(
  "cells",
  {
    id: text("id").primaryKey(),
    tableId: text("table_id").notNull(),
    rowId: text("row_id").notNull(),
    columnId: text("column_id").notNull(),
    workspaceId: text("workspace_id").notNull(),
    originId: text("origin_id").notNull().default(""),
    isIdentifier: integer("is_identifier", { mode: "boolean" }).notNull().default(false),
    data: text("data", { mode: "json" }).$type<unknown>(),
    isDeleted: integer("is_deleted", { mode: "boolean" }).notNull().default(false),
    createdAt: integer("created_at").notNull(),
    updatedAt: integer("updated_at").notNull(),
  },
  (t) => [
    uniqueIndex("cells_row_column_uq").on(t.rowId, t.columnId),
    /** A column's cells in row order: the formula engine's page reads scan a range of it (migrations/shard/0000). */
    index("cells_column_row_idx").on(t.columnId, t.rowId),
    index("cells_table_idx").on(t.tableId),
    /**
     * A column's live cells by stored value (numbers as numbers, text as text): a row query's filters are ranges of
     * it and its sorts read it (src/services/tables/query/sqlParts.ts, VALUE; docs/api-guide.md › Querying rows).
     */
    index("cells_column_value_idx")
      .on(t.columnId, sql`json_extract(${t.data}, '$')`, t.rowId)
      .where(sql`${t.isDeleted} = 0`),
    /**
     * A live cell's stored value by column and row: a sorted query's or an aggregate's key of each matching row is
     * read from the index alone (`INDEXED BY` in src/services/tables/query/sqlParts.ts, rowValue), never from the
     * cell's record. Kept by SQLite on every write path, like cells_column_value_idx.
     */
    index("cells_column_row_value_idx")
      .on(t.columnId, t.rowId, sql`json_extract(${t.data}, '$')`)
      .where(sql`${t.isDeleted} = 0`),
  ],
);

export const tableReferences = sqliteTable(
  "table_references",
  {
    id: text("id").primaryKey(),
    originId: text("origin_id").notNull().default(""),
    documentId: text("document_id")
      .notNull()
      .references(() => documents.id),
    workspaceId: text("workspace_id")
      .notNull()
      .references(() => workspaces.id),
    tableId: text("table_id")
      .notNull()
      .references(() => tables.id),
    columnId: text("column_id")
      .notNull()
      .references(() => columns.id),
    relatedRowId: text("related_row_id"),
    rowId: text("row_id"),
    oneToManyColumnId: text("one_to_many_column_id"),
    oneToManyInstanceIds: text("one_to_many_instance_ids", { mode: "json" }).$type<string[]>(),
    type: text("type", { enum: ["relation", "reference", "global"] }).notNull(),
    /** Internal: the published record has no isDeleted, but nothing a user deletes is hard-deleted (docs/api-guide.md › Conventions). */
    isDeleted: integer("is_deleted", { mode: "boolean" }).notNull().default(false),
    createdAt: integer("created_at").notNull(),
    updatedAt: integer("updated_at").notNull(),
  },
  (t) => [
    index("table_references_document_idx").on(t.documentId, t.isDeleted),
    // The reference-id repair's range over the last day (src/services/references/referenceIds.ts).
    index("table_references_created_idx").on(t.createdAt),
  ],
);

export const clauseReferences = sqliteTable(
  "clause_references",
  {
    id: text("id").primaryKey(),
    blockId: text("block_id").notNull(),
    documentId: text("document_id")
      .notNull()
      .references(() => documents.id),
    workspaceId: text("workspace_id")
      .notNull()
      .references(() => workspaces.id),
    hierarchy: text("hierarchy").notNull(),
    originId: text("origin_id").notNull().default(""),
    isDeleted: integer("is_deleted", { mode: "boolean" }).notNull().default(false),
    createdAt: integer("created_at").notNull(),
    updatedAt: integer("updated_at").notNull(),
  },
  (t) => [
    index("clause_references_document_idx").on(t.documentId, t.isDeleted),
    // The reference-id repair's range over the last day (src/services/references/referenceIds.ts).
    index("clause_references_created_idx").on(t.createdAt),
  ],
);
