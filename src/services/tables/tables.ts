/** Tables: create with their identifier column, rename, soft-delete, list ids (API.md §7, E19). */
import { and, desc, eq } from "drizzle-orm";
import { columns, tables } from "../../db/schema";
import type { Db } from "../../env";
import { newId, now } from "../../lib/ids";
import type { ProjectRow } from "../../auth/access";
import { identifierColumnRow } from "./columns";
import type { ColumnRow, TableRow } from "./serialize";

/** The table and its identifier column (`Name`, slug `name`) in one atomic batch. */
export async function createTable(db: Db, userId: string, project: ProjectRow, input: { name: string; documentId?: string | null }): Promise<{ table: TableRow; identifier: ColumnRow }> {
  const t = now();
  const table: TableRow = {
    id: newId(),
    projectId: project.id,
    workspaceId: project.workspaceId,
    documentId: input.documentId ?? null,
    userId,
    name: input.name,
    isDeleted: false,
    createdAt: t,
    updatedAt: t,
  };
  const identifier = identifierColumnRow(table);
  await db.batch([db.insert(tables).values(table), db.insert(columns).values(identifier)]);
  return { table, identifier };
}

export async function renameTable(db: Db, table: TableRow, name: string): Promise<TableRow> {
  const [row] = await db.update(tables).set({ name, updatedAt: now() }).where(eq(tables.id, table.id)).returning();
  return row!;
}

/** Its columns, rows and cells vanish with it: every read joins through the table. */
export async function softDeleteTable(db: Db, table: TableRow): Promise<void> {
  await db.update(tables).set({ isDeleted: true, updatedAt: now() }).where(eq(tables.id, table.id));
}

/** Ids of the project's live tables, newest first (ids are time-ordered). */
export async function tableIdsOfProject(db: Db, projectId: string): Promise<string[]> {
  const found = await db
    .select({ id: tables.id })
    .from(tables)
    .where(and(eq(tables.projectId, projectId), eq(tables.isDeleted, false)))
    .orderBy(desc(tables.id));
  return found.map((r) => r.id);
}
