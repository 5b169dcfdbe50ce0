/**
 * The table rule (docs/api-guide.md › Concepts): tables, their columns, rows and cells follow their project — read
 * with project read, write with workspace owner/admin/editor — as one batchable statement and its decision.
 */
import { eq, getTableColumns, sql, type SQL } from "drizzle-orm";
import type { SQLiteColumn } from "drizzle-orm/sqlite-core";
import type { Db } from "../env";
import { tables } from "../db/schema";
import { forbidden, notFound } from "../errors";
import { outsideResources } from "./tokenLimits";
import { checkWorkspaceLevel, viaDocumentGrant, type TableRow, type UserRef, type WorkspaceRole } from "./access";

function workspaceRoleOfProject(user: UserRef, projectId: SQL | SQLiteColumn) {
  return sql<
    string | null
  >`(SELECT wc.role FROM workspace_collaborators wc JOIN projects p ON p.workspace_id = wc.workspace_id
    WHERE p.id = ${projectId} AND wc.user_id = ${user})`;
}

/**
 * Tables (and their columns, rows and cells) follow their project (docs/api-guide.md › Concepts): `read` with
 * project read, `write` with workspace owner/admin/editor. This is that rule as one batchable statement (the
 * table's columns plus aliased access members), for reads
 * that fold authentication, access and data into one D1 batch. `tableId` may be SQL, e.g.
 * `sql\`(SELECT table_id FROM rows WHERE id = ${rowId})\`` to reach a row's table in the same batch.
 */
export function tableAccessStatement(db: Db, user: UserRef, tableId: string | SQL) {
  return db
    .select({
      ...getTableColumns(tables),
      accessRole: workspaceRoleOfProject(user, tables.projectId).as("access_role"),
      accessViaDocument: sql<number>`${viaDocumentGrant(user, tables.projectId)}`.as("access_via_document"),
    })
    .from(tables)
    .where(eq(tables.id, tableId));
}

export type TableAccessRow = TableRow & { accessRole: string | null; accessViaDocument: number | boolean };

export interface TableRoleAccess {
  table: TableRow;
  workspaceRole: WorkspaceRole | null;
}

/**
 * The table rule's decision on a row of tableAccessStatement: NotFoundError labelled `as` when the table is missing,
 * soft-deleted or unreadable; ForbiddenError for `write` below workspace editor.
 */
export function checkTableAccess(
  row: TableAccessRow | undefined,
  level: "read" | "write",
  opts: { as?: string } = {},
): TableRoleAccess {
  if (!row || row.isDeleted || (row.accessRole === null && !row.accessViaDocument) || outsideResources(row))
    throw notFound(opts.as ?? "Table");
  const { accessRole, accessViaDocument: _via, ...table } = row;
  const role = (accessRole as WorkspaceRole | null) ?? null;
  if (level === "write") {
    if (role === null) throw forbidden("This operation needs a workspace role");
    checkWorkspaceLevel(role, "edit");
  }
  return { table, workspaceRole: role };
}
