/**
 * Table references (API.md §9): a document's link to a table column (and row). `columnName` and `tableName` are
 * never stored: every read joins the current column and table, so a rename shows at once.
 */
import { and, asc, eq, sql } from "drizzle-orm";
import { columns, rows, tableReferences, tables } from "../../db/schema";
import type { AuthUser, Db } from "../../env";
import { ApiError, conflict, forbidden, validation, type ErrorDetail } from "../../errors";
import { newId, now } from "../../lib/ids";
import { isUniqueViolation } from "../../db/errors";
import { inJson } from "../../db/sql";
import { requireProject, type TableAccess } from "../../auth/access";
import type { DocumentRow } from "../../auth/access";

type ReferenceRow = typeof tableReferences.$inferSelect;

function referencesWithNames(db: Db) {
  return db
    .select({ ref: tableReferences, columnName: columns.name, tableName: tables.name, tableProjectId: tables.projectId })
    .from(tableReferences)
    .innerJoin(tables, and(eq(tables.id, tableReferences.tableId), eq(tables.isDeleted, false)))
    .innerJoin(columns, and(eq(columns.id, tableReferences.columnId), eq(columns.isDeleted, false)));
}

type ReferenceWithNames = { ref: ReferenceRow; columnName: string; tableName: string; tableProjectId: string };

export function tableReferenceDto({ ref, columnName, tableName }: ReferenceWithNames) {
  return {
    _id: ref.id,
    originId: ref.originId,
    documentId: ref.documentId,
    workspaceId: ref.workspaceId,
    tableId: ref.tableId,
    columnId: ref.columnId,
    relatedRowId: ref.relatedRowId ?? null,
    rowId: ref.rowId ?? null,
    oneToManyColumnId: ref.oneToManyColumnId ?? null,
    oneToManyInstanceIds: ref.oneToManyInstanceIds ?? [],
    columnName,
    tableName,
    type: ref.type,
    createdAt: ref.createdAt,
    updatedAt: ref.updatedAt,
  };
}

export interface NewTableReference {
  _id?: string;
  columnId: string;
  relatedRowId: string | null;
  rowId?: string | null;
  oneToManyColumnId?: string | null;
  oneToManyInstanceIds?: string[];
  type: "relation" | "reference" | "global";
}

/**
 * The caller has already been checked for edit access to `doc` and read access to the table. `columnId` and
 * `oneToManyColumnId` must be live columns of the table, `relatedRowId` a live row of it, and `rowId` and
 * `oneToManyInstanceIds` live rows of the same project (400); a reused `_id` is 409.
 */
export async function createTableReference(db: Db, doc: DocumentRow, { table }: TableAccess, input: NewTableReference) {
  const columnIds = [input.columnId, ...(input.oneToManyColumnId ? [input.oneToManyColumnId] : [])];
  // Rows named by the reference must be live rows of this project's tables, so a reference can never become a
  // window onto rows its creator could not read (E5 returns every referenced row with its cells).
  const rowIds = [...new Set([input.rowId, ...(input.oneToManyInstanceIds ?? [])].filter((x): x is string => !!x))];
  const [cols, related, existing, projectRows] = await db.batch([
    db
      .select({ id: columns.id })
      .from(columns)
      .where(and(eq(columns.tableId, table.id), eq(columns.isDeleted, false), sql`${columns.id} IN (SELECT value FROM json_each(${JSON.stringify(columnIds)}))`)),
    db
      .select({ id: rows.id })
      .from(rows)
      .where(and(eq(rows.id, input.relatedRowId ?? ""), eq(rows.tableId, table.id), eq(rows.isDeleted, false))),
    db.select({ id: tableReferences.id }).from(tableReferences).where(eq(tableReferences.id, input._id ?? "")),
    db
      .select({ id: rows.id })
      .from(rows)
      .innerJoin(tables, and(eq(tables.id, rows.tableId), eq(tables.isDeleted, false)))
      .where(and(eq(rows.projectId, table.projectId), eq(rows.isDeleted, false), sql`${rows.id} IN (SELECT value FROM json_each(${JSON.stringify(rowIds)}))`)),
  ]);
  const liveRows = new Set(projectRows.map((r) => r.id));
  const live = new Set(cols.map((c) => c.id));
  const details: ErrorDetail[] = [];
  if (!live.has(input.columnId)) details.push({ path: "columnId", message: "not a column of this table" });
  if (input.oneToManyColumnId && !live.has(input.oneToManyColumnId)) details.push({ path: "oneToManyColumnId", message: "not a column of this table" });
  if (input.relatedRowId !== null && related.length === 0) details.push({ path: "relatedRowId", message: "not a row of this table" });
  if (input.rowId && !liveRows.has(input.rowId)) details.push({ path: "rowId", message: "not a row of this project" });
  (input.oneToManyInstanceIds ?? []).forEach((id, i) => {
    if (!liveRows.has(id)) details.push({ path: `oneToManyInstanceIds.${i}`, message: "not a row of this project" });
  });
  if (details.length) throw validation(`Invalid table reference: ${details.map((d) => `${d.path}: ${d.message}`).join("; ")}`, details);
  if (existing.length) throw conflict(`A table reference with _id ${input._id} already exists`);
  const t = now();
  const id = input._id ?? newId();
  try {
    await db.insert(tableReferences).values({
      id,
      documentId: doc.id,
      workspaceId: doc.workspaceId,
      tableId: table.id,
      columnId: input.columnId,
      relatedRowId: input.relatedRowId,
      rowId: input.rowId ?? null,
      oneToManyColumnId: input.oneToManyColumnId ?? null,
      oneToManyInstanceIds: input.oneToManyInstanceIds ?? [],
      type: input.type,
      createdAt: t,
      updatedAt: t,
    });
  } catch (err) {
    if (isUniqueViolation(err, "table_references.id")) throw conflict(`A table reference with _id ${id} already exists`);
    throw err;
  }
  return (await findTableReference(db, id))!;
}

/** A non-deleted reference with its live names, or null. */
export async function findTableReference(db: Db, id: string): Promise<ReferenceWithNames | null> {
  const [found] = await referencesWithNames(db).where(and(eq(tableReferences.id, id), eq(tableReferences.isDeleted, false)));
  return found ?? null;
}

/**
 * E1's 403: the caller can read the reference's document, but not the referenced table's project, so the
 * names (and the ids' meaning) are withheld.
 */
export async function requireReferencedTableReadable(db: Db, user: AuthUser, found: ReferenceWithNames): Promise<void> {
  try {
    await requireProject(db, user, found.tableProjectId, "read");
  } catch (err) {
    if (err instanceof ApiError && err.code === "NotFoundError") throw forbidden("You can read the document but not the referenced table");
    throw err;
  }
}

/** A document's live references whose tables the caller can read, oldest first. */
export async function tableReferencesOfDocument(db: Db, user: AuthUser, documentId: string): Promise<ReferenceWithNames[]> {
  const found = await referencesWithNames(db)
    .where(and(eq(tableReferences.documentId, documentId), eq(tableReferences.isDeleted, false)))
    .orderBy(asc(tableReferences.createdAt), asc(tableReferences.id));
  const readable = new Map<string, boolean>();
  for (const projectId of new Set(found.map((f) => f.tableProjectId))) {
    readable.set(
      projectId,
      await requireProject(db, user, projectId, "read").then(
        () => true,
        () => false,
      ),
    );
  }
  return found.filter((f) => readable.get(f.tableProjectId));
}

/**
 * Live references (with live names) of many documents in one query, oldest first; access is the caller's.
 * Not for a db.batch: drizzle maps batched D1 rows by column name, and the joined tables share names
 * (project_id, name), which would read one table's value for another's.
 */
export async function tableReferencesOfDocuments(db: Db, documentIds: readonly string[]): Promise<ReferenceWithNames[]> {
  return referencesWithNames(db)
    .where(and(inJson(tableReferences.documentId, documentIds), eq(tableReferences.isDeleted, false)))
    .orderBy(asc(tableReferences.createdAt), asc(tableReferences.id));
}

export async function softDeleteTableReference(db: Db, id: string): Promise<void> {
  await db.update(tableReferences).set({ isDeleted: true, updatedAt: now() }).where(eq(tableReferences.id, id));
}

