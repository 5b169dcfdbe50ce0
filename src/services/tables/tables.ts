/**
 * Tables: create with their identifier column, read, rename, soft-delete, list ids (docs/api-guide.md › Tables, columns, rows, cells, E19). Each
 * function loads access and data in one D1 batch (`read`), so a single-record read is one round trip with its
 * authentication and a write is that batch plus its own.
 */
import { and, desc, eq } from "drizzle-orm";
import { nextUpdatedAt } from "../../db/sql";
import { columns, tables } from "../../db/schema";
import type { ExpectedVersion } from "../../lib/etag";
import { assertExpectedVersion } from "../preconditions";
import {
  assembleDocumentsAccess,
  checkDocumentAccess,
  checkProjectAccess,
  documentsAccessStatements,
  projectAccessStatement,
} from "../../auth/access";
import { checkTableAccess, tableAccessStatement } from "../../auth/tableAccess";
import { preconditionFailed, validation } from "../../errors";
import { read, type ServiceContext } from "../context";
import { keptAnswerUpdates } from "../idempotency";
import { identifierColumnRow } from "./columns";
import { recalculateLookupsReading } from "./recompute";
import { columnDto, tableDto, type ColumnRow, type TableRow } from "./serialize";
import { tableCreatedEntries, tableDeletedEntry, tableRenamedEntry } from "./changeLog";
import type { BatchItem } from "drizzle-orm/batch";

export type TableDto = ReturnType<typeof tableDto>;

/** The body `GET /table/{id}` answers with: what its ETag is computed from, and what If-Match is compared with. */
export const tableRepresentation = (table: TableRow) => ({ data: tableDto(table) });

/**
 * The table and its identifier column (`Name`, slug `name`) in one atomic batch. Needs workspace
 * owner/admin/editor on the project; `documentId`, when given, a readable document of the same project.
 */
export async function createTable(
  ctx: ServiceContext,
  input: { projectId: string; name: string; documentId?: string | null },
) {
  const [projectRows, ...docResults] = await read(ctx, [
    projectAccessStatement(ctx.db, ctx.user.ref, input.projectId),
    ...documentsAccessStatements(ctx.db, ctx.user.ref, input.documentId ? [input.documentId] : []),
  ]);
  // Existence and read access of both records before the role (docs/api-guide.md › Conventions): a viewer naming a missing document gets 404.
  const { project } = checkProjectAccess(projectRows[0], "read");
  const doc = input.documentId
    ? checkDocumentAccess(assembleDocumentsAccess(docResults).get(input.documentId), "read").doc
    : null;
  checkProjectAccess(projectRows[0], "write");
  if (doc && doc.projectId !== project.id)
    throw validation("The document must belong to the table's project", [
      { path: "documentId", message: "not in this project" },
    ]);
  const table: TableRow = {
    id: ctx.ids.beside(project.id),
    projectId: project.id,
    workspaceId: project.workspaceId,
    documentId: input.documentId ?? null,
    userId: ctx.user.id,
    name: input.name,
    isDeleted: false,
    formulaBusyUntil: 0,
    createdAt: ctx.now,
    updatedAt: ctx.now,
  };
  const identifier: ColumnRow = identifierColumnRow(table, ctx.ids);
  const dto = { ...tableDto(table), columns: [columnDto(identifier)] };
  // A keyed request's answer commits with the table (services/idempotency.ts), so a crash cannot part them.
  await ctx.db.batch([
    ctx.db.insert(tables).values(table),
    ctx.db.insert(columns).values(identifier),
    ...tableCreatedEntries(ctx, table, identifier),
    ...(await keptAnswerUpdates(ctx, { payload: { data: dto } })),
  ]);
  return dto;
}

/** A table the caller may read (404 when missing, deleted or unreadable): one D1 round trip with authentication. */
export async function getTable(ctx: ServiceContext, { tableId }: { tableId: string }): Promise<TableDto> {
  const [[row]] = await read(ctx, [tableAccessStatement(ctx.db, ctx.user.ref, tableId)]);
  return tableDto(checkTableAccess(row, "read").table);
}

/** Renames the table; `expected` is compared with the table's current GET representation first (412, nothing changed). */
export async function updateTable(
  ctx: ServiceContext,
  input: { tableId: string; name: string; expected?: ExpectedVersion },
): Promise<TableDto> {
  const [[row]] = await read(ctx, [tableAccessStatement(ctx.db, ctx.user.ref, input.tableId)]);
  const { table } = checkTableAccess(row, "write");
  await assertExpectedVersion(input.expected, () => tableRepresentation(table));
  // With If-Match, a compare-and-set on the row as checked: a concurrent write in between makes this a 412.
  const where = casWhere(table, input.expected);
  const log = tableRenamedEntry(ctx, table, input.name, where);
  const results = await ctx.db.batch([
    ...log,
    ctx.db
      .update(tables)
      .set({ name: input.name, updatedAt: nextUpdatedAt(tables.updatedAt, ctx.now) })
      .where(where)
      .returning(),
  ] as unknown as [BatchItem<"sqlite">, ...BatchItem<"sqlite">[]]);
  const [updated] = results[log.length] as TableRow[];
  if (!updated) throw preconditionFailed();
  return tableDto(updated);
}

/** Its columns, rows and cells vanish with it: every read joins through the table. If-Match as for update. */
export async function deleteTable(
  ctx: ServiceContext,
  input: { tableId: string; expected?: ExpectedVersion },
): Promise<void> {
  const [[row]] = await read(ctx, [tableAccessStatement(ctx.db, ctx.user.ref, input.tableId)]);
  const { table } = checkTableAccess(row, "write");
  await assertExpectedVersion(input.expected, () => tableRepresentation(table));
  const where = casWhere(table, input.expected);
  const log = tableDeletedEntry(ctx, table, where);
  const results = await ctx.db.batch([
    ...log,
    ctx.db
      .update(tables)
      .set({ isDeleted: true, updatedAt: nextUpdatedAt(tables.updatedAt, ctx.now) })
      .where(where)
      .returning({ id: tables.id }),
  ] as unknown as [BatchItem<"sqlite">, ...BatchItem<"sqlite">[]]);
  if ((results[log.length] as unknown[]).length === 0) throw preconditionFailed();
  // Lookups in other tables that read this one now read #REF!.
  await recalculateLookupsReading(ctx.env, table.id);
}

/** The table as checked; with If-Match, also unchanged since (a compare-and-set: a concurrent write makes it a 412). */
const casWhere = (table: TableRow, expected: ExpectedVersion | undefined) =>
  and(eq(tables.id, table.id), expected === undefined ? undefined : eq(tables.updatedAt, table.updatedAt))!;

/** E19: ids of the project's live tables, newest first (ids are time-ordered), with project read access (else 404). */
export async function listTableIds(ctx: ServiceContext, { projectId }: { projectId: string }): Promise<string[]> {
  const [[project], found] = await read(ctx, [
    projectAccessStatement(ctx.db, ctx.user.ref, projectId),
    ctx.db
      .select({ id: tables.id })
      .from(tables)
      .where(and(eq(tables.projectId, projectId), eq(tables.isDeleted, false)))
      .orderBy(desc(tables.id)),
  ]);
  checkProjectAccess(project, "read");
  return found.map((r) => r.id);
}
