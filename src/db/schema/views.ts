import { sqliteTable, text, integer, index } from "drizzle-orm/sqlite-core";
import { users } from "./identity";
import { projects, workspaces } from "./workspaces";
import { tables } from "./tables";

/**
 * Saved views of a table (docs/api-guide.md › Views and aggregates): a named query — `filter` (the row filter
 * tree), `sort`, `fields` and `hidden` (column ids) as JSON — evaluated when its rows are read.
 */
export const tableViews = sqliteTable(
  "table_views",
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
    userId: text("user_id")
      .notNull()
      .references(() => users.id),
    name: text("name").notNull(),
    filter: text("filter", { mode: "json" }).$type<unknown>(),
    sort: text("sort", { mode: "json" }).$type<{ columnId: string; direction: "asc" | "desc" }[]>().notNull(),
    fields: text("fields", { mode: "json" }).$type<string[] | null>(),
    hidden: text("hidden", { mode: "json" }).$type<string[]>().notNull(),
    isDeleted: integer("is_deleted", { mode: "boolean" }).notNull().default(false),
    createdAt: integer("created_at").notNull(),
    updatedAt: integer("updated_at").notNull(),
  },
  (t) => [index("table_views_table_idx").on(t.tableId, t.isDeleted, t.id)],
);
