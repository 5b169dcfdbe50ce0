/**
 * Saved views of a table (docs/api-guide.md › Views and aggregates): create, list, read, change, soft-delete, and
 * read a view's rows. A view follows its table's access: reading needs table read, changing needs table write.
 * Conditions, sort keys and fields on columns deleted since are dropped when the view is read, and listed in
 * `warnings`.
 */
import { and, asc, eq, sql } from "drizzle-orm";
import type { BatchItem } from "drizzle-orm/batch";
import { tableViews } from "../../db/schema";
import { nextUpdatedAt } from "../../db/sql";
import type { ExpectedVersion } from "../../lib/etag";
import { checkTableAccess, tableAccessStatement } from "../../auth/tableAccess";
import { notFound, preconditionFailed } from "../../errors";
import { read, type ServiceContext } from "../context";
import { keptAnswerUpdates } from "../idempotency";
import { assertExpectedVersion } from "../preconditions";
import { liveColumnsQuery } from "../tables/columns";
import type { ColumnRow } from "../tables/serialize";
import { compileQuery, runQuery, type QueryAnswer } from "../tables/query/query";
import { viewDto, viewWarnings, type ViewInput, type ViewRow } from "./viewShape";
import { viewCreatedEntry, viewDeletedEntry, viewUpdatedEntry } from "./changeLog";

export { viewDto };

/** A batch's statements (the write last, never empty) as Drizzle's batch takes them. */
const batchOf = (items: BatchItem<"sqlite">[]) => items as [BatchItem<"sqlite">, ...BatchItem<"sqlite">[]];

const tableOfView = (viewId: string) => sql`(SELECT table_id FROM table_views WHERE id = ${viewId})`;

/** The live view, its table's access row and the table's live columns: one batch. */
async function loadView(ctx: ServiceContext, viewId: string, level: "read" | "write") {
  const [[view], [tableRow], columnList] = await read(ctx, [
    ctx.db
      .select()
      .from(tableViews)
      .where(and(eq(tableViews.id, viewId), eq(tableViews.isDeleted, false))),
    tableAccessStatement(ctx.db, ctx.user.ref, tableOfView(viewId)),
    liveColumnsQuery(ctx.db, tableOfView(viewId)),
  ]);
  if (!view) throw notFound("View");
  checkTableAccess(tableRow, "read", { as: "View" });
  const { table } = checkTableAccess(tableRow, level, { as: "View" });
  return { view, table, columns: columnList };
}

/** The body GET /table/view/{viewId} answers with (its ETag; what If-Match compares with). */
export const viewRepresentation = (view: ViewRow, columns: readonly ColumnRow[]) => ({ data: viewDto(view, columns) });

/** Checks a view's query against the columns (422 with paths), as a row query would. */
function checkViewQuery(
  ctx: ServiceContext,
  table: Parameters<typeof compileQuery>[1],
  columns: ColumnRow[],
  v: ViewInput,
) {
  compileQuery(ctx, table, columns, {
    filter: v.filter ?? undefined,
    sort: v.sort,
    fields: v.fields ?? undefined,
    limit: 1,
  });
  compileQuery(ctx, table, columns, { fields: v.hidden, limit: 1 });
}

export async function createView(ctx: ServiceContext, input: { tableId: string; view: ViewInput & { name: string } }) {
  const [[tableRow], columnList] = await read(ctx, [
    tableAccessStatement(ctx.db, ctx.user.ref, input.tableId),
    liveColumnsQuery(ctx.db, input.tableId),
  ]);
  checkTableAccess(tableRow, "read");
  const { table } = checkTableAccess(tableRow, "write");
  checkViewQuery(ctx, table, columnList, input.view);
  const row: ViewRow = {
    id: ctx.ids.beside(table.id),
    tableId: table.id,
    projectId: table.projectId,
    workspaceId: table.workspaceId,
    userId: ctx.user.id,
    name: input.view.name,
    filter: input.view.filter ?? null,
    sort: input.view.sort ?? [],
    fields: input.view.fields ?? null,
    hidden: input.view.hidden ?? [],
    isDeleted: false,
    createdAt: ctx.now,
    updatedAt: ctx.now,
  };
  const dto = viewDto(row, columnList);
  await ctx.db.batch([
    ctx.db.insert(tableViews).values(row),
    ...viewCreatedEntry(ctx, row),
    ...(await keptAnswerUpdates(ctx, { payload: { data: dto } })),
  ]);
  return dto;
}

export async function listViews(ctx: ServiceContext, input: { tableId: string }) {
  const [[tableRow], columnList, found] = await read(ctx, [
    tableAccessStatement(ctx.db, ctx.user.ref, input.tableId),
    liveColumnsQuery(ctx.db, input.tableId),
    ctx.db
      .select()
      .from(tableViews)
      .where(and(eq(tableViews.tableId, input.tableId), eq(tableViews.isDeleted, false)))
      .orderBy(asc(tableViews.id)),
  ]);
  checkTableAccess(tableRow, "read");
  return found.map((v) => viewDto(v, columnList));
}

export async function getView(ctx: ServiceContext, input: { viewId: string }) {
  const { view, columns } = await loadView(ctx, input.viewId, "read");
  return viewDto(view, columns);
}

export async function updateView(
  ctx: ServiceContext,
  input: { viewId: string; changes: Partial<ViewInput & { name: string }>; expected?: ExpectedVersion },
) {
  const { view, table, columns } = await loadView(ctx, input.viewId, "write");
  await assertExpectedVersion(input.expected, () => viewRepresentation(view, columns));
  const merged = { ...view, ...input.changes };
  checkViewQuery(ctx, table, columns, merged);
  const set: Partial<ViewRow> = {};
  const c = input.changes;
  if (c.name !== undefined) set.name = c.name;
  if (c.filter !== undefined) set.filter = c.filter;
  if (c.sort !== undefined) set.sort = c.sort;
  if (c.fields !== undefined) set.fields = c.fields;
  if (c.hidden !== undefined) set.hidden = c.hidden;
  const write = ctx.db
    .update(tableViews)
    .set({ ...set, updatedAt: nextUpdatedAt(tableViews.updatedAt, ctx.now) })
    .where(
      and(
        eq(tableViews.id, view.id),
        eq(tableViews.isDeleted, false),
        input.expected === undefined ? undefined : eq(tableViews.updatedAt, view.updatedAt),
      ),
    )
    .returning();
  // The entry goes before the update (it compares the stored members with the new ones) in the same batch.
  const results = await ctx.db.batch(batchOf([...viewUpdatedEntry(ctx, view, set), write]));
  const [updated] = results.at(-1) as ViewRow[];
  if (!updated) throw input.expected === undefined ? notFound("View") : preconditionFailed();
  return viewDto(updated, columns);
}

export async function deleteView(ctx: ServiceContext, input: { viewId: string; expected?: ExpectedVersion }) {
  const { view, columns } = await loadView(ctx, input.viewId, "write");
  await assertExpectedVersion(input.expected, () => viewRepresentation(view, columns));
  const write = ctx.db
    .update(tableViews)
    .set({ isDeleted: true, updatedAt: nextUpdatedAt(tableViews.updatedAt, ctx.now) })
    .where(
      and(
        eq(tableViews.id, view.id),
        eq(tableViews.isDeleted, false),
        input.expected === undefined ? undefined : eq(tableViews.updatedAt, view.updatedAt),
      ),
    )
    .returning({ id: tableViews.id });
  const results = await ctx.db.batch(batchOf([...viewDeletedEntry(ctx, view), write]));
  const deleted = results.at(-1) as { id: string }[];
  if (deleted.length === 0) throw input.expected === undefined ? notFound("View") : preconditionFailed();
}

/**
 * GET /table/view/{viewId}/rows: the view's query (its filter AND the caller's), sort and fields, evaluated now
 * (relative dates at this moment); members on deleted columns dropped and listed in `warnings`.
 */
export async function viewRows(
  ctx: ServiceContext,
  input: { viewId: string; filter?: unknown; limit: number; cursor?: string },
): Promise<QueryAnswer> {
  const { view, table, columns } = await loadView(ctx, input.viewId, "read");
  const live = new Set(columns.map((c) => c.id));
  const hidden = new Set(view.hidden);
  const fields = (view.fields ?? columns.map((c) => c.id)).filter((id) => live.has(id) && !hidden.has(id));
  const query = {
    filter: input.filter,
    sort: view.sort.filter((k) => live.has(k.columnId)),
    fields: view.fields || view.hidden.length ? fields : undefined,
    limit: input.limit,
    cursor: input.cursor,
  };
  const compiled = compileQuery(ctx, table, columns, query, view.filter ?? undefined);
  const answer = await runQuery(ctx, { tableId: table.id, columns, compiled, query });
  const warnings = viewWarnings(view, columns);
  return { data: answer.data, nextCursor: answer.nextCursor, ...(warnings.length ? { warnings } : {}) };
}
