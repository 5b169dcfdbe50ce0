import { emitAfterResponse, rowEvent } from "../events/events";
/** Single cells: E15 and the upsert with per-type checks (cellValues.ts), each with its access in one batch. */
import { and, eq, sql } from "drizzle-orm";
import { cells, columns, rows } from "../../db/schema";
import { notFound } from "../../errors";
import type { ExpectedVersion } from "../../lib/etag";
import { assertExpectedVersion } from "../preconditions";
import { checkTableAccess, tableAccessStatement } from "../../auth/tableAccess";
import { read, type ServiceContext } from "../context";
import { checkCellWrite } from "./cellValues";
import { resolveSelectLabel } from "./bulk/labels";
import { recalculateFormulasAfterWrite } from "./recompute";
import { liveRowQuery, tableOfRow } from "./rowReads";
import { inJson } from "../../db/sql";
import { cellDto, type CellRow, type ColumnRow, type RowRow, type TableRow } from "./serialize";
import { rowChangeLog } from "../changes/log";
import { foldAfterResponse } from "../changes/staged";
import { d1Of, statement } from "../../db/d1";

/** A Drizzle query as a D1 statement, for a batch with the change log's statements. */
const asD1 = (d1: D1Database, q: { toSQL(): { sql: string; params: unknown[] } }) => {
  const { sql: text, params } = q.toSQL();
  return statement(d1, text, ...params);
};

export type CellDto = ReturnType<typeof cellDto>;

/** The body E15 answers with: its ETag, and what If-Match on PUT is compared with. */
export const cellRepresentation = (cell: CellRow) => ({ data: cellDto(cell) });

/** Live cells (their row and column live too), for a batch. */
function liveCellWhere(...conditions: Parameters<typeof and>) {
  return and(
    ...conditions,
    eq(cells.isDeleted, false),
    sql`EXISTS (SELECT 1 FROM rows r WHERE r.id = ${cells.rowId} AND r.is_deleted = 0)`,
    sql`EXISTS (SELECT 1 FROM columns k WHERE k.id = ${cells.columnId} AND k.is_deleted = 0)`,
  );
}

/** E15: a live cell of a readable table (404 alike for missing, deleted and unreadable). One round trip. */
export async function getCell(ctx: ServiceContext, { cellId }: { cellId: string }): Promise<CellDto> {
  const [[cell], [tableRow]] = await read(ctx, [
    ctx.db
      .select()
      .from(cells)
      .where(liveCellWhere(eq(cells.id, cellId))),
    tableAccessStatement(ctx.db, ctx.user.ref, sql`(SELECT table_id FROM cells WHERE id = ${cellId})`),
  ]);
  if (!cell) throw notFound("Cell");
  checkTableAccess(tableRow, "read", { as: "Cell" });
  return cellDto(cell);
}

/**
 * PUT /table/row/{rowId}/cell/{columnId}: row, access, column and the current cell in one batch; `expected` is
 * compared with the current cell's E15 representation (412, nothing changed; no cell yet never matches); the
 * value is checked against the column (409 computed, 400 wrong type); cell and the row's updatedAt are written in
 * one batch; then the row's formula cells are recomputed in the table's coordinator and returned as computed.
 */
export async function upsertCell(
  ctx: ServiceContext,
  input: { rowId: string; columnId: string; data: unknown; expected?: ExpectedVersion },
): Promise<{ cell: CellDto; formulaCells: Record<string, unknown>; table: TableRow; row: RowRow }> {
  const [[row], [tableRow], [column], [current]] = await read(ctx, [
    liveRowQuery(ctx.db, input.rowId),
    tableAccessStatement(ctx.db, ctx.user.ref, tableOfRow(input.rowId)),
    ctx.db
      .select()
      .from(columns)
      .where(and(eq(columns.id, input.columnId), eq(columns.isDeleted, false))),
    ctx.db
      .select()
      .from(cells)
      .where(and(eq(cells.rowId, input.rowId), eq(cells.columnId, input.columnId), eq(cells.isDeleted, false))),
  ]);
  if (!row) throw notFound("Row");
  // Existence of the row and the column before the role (docs/api-guide.md › Conventions): a viewer naming a missing column gets 404.
  const { table } = checkTableAccess(tableRow, "read", { as: "Row" });
  if (!column || column.tableId !== table.id) throw notFound("Column");
  checkTableAccess(tableRow, "write", { as: "Row" });
  await assertExpectedVersion(input.expected, () => (current ? cellRepresentation(current) : undefined));
  const data = resolveSelectLabel(column, input.data);
  checkCellWrite(column, data);
  const d1 = d1Of(ctx.db);
  const log = rowChangeLog(ctx, d1, table).cells([["", row.id, column.id, 0, data]]);
  const results = await d1.batch([
    ...log,
    asD1(
      d1,
      cellUpsertStatement(ctx, table, row.id, column, data).returning({
        id: cells.id,
        originId: cells.originId,
        createdAt: cells.createdAt,
      }),
    ),
    asD1(d1, ctx.db.update(rows).set({ updatedAt: ctx.now }).where(eq(rows.id, row.id))),
  ]);
  const stored = results[log.length]!.results[0] as { id: string; origin_id: string; created_at: number };
  const cell: CellRow = {
    ...{ id: stored.id, tableId: table.id, rowId: row.id, columnId: column.id, workspaceId: table.workspaceId },
    ...{ originId: stored.origin_id, isIdentifier: column.isIdentifier, data, isDeleted: false },
    ...{ createdAt: stored.created_at, updatedAt: ctx.now },
  };
  const computed = await recalculateFormulasAfterWrite(ctx.env, table.id, [row.id]);
  emitAfterResponse(ctx, [rowEvent("row.updated", table, row.id, [input.columnId])]);
  return { cell: cellDto(cell), formulaCells: computed.formulaCells[row.id] ?? {}, table, row };
}

/** The write of one cell value: inserted, or the stored cell (live or deleted) given the value. */
function cellUpsertStatement(ctx: ServiceContext, table: TableRow, rowId: string, column: ColumnRow, data: unknown) {
  const t = ctx.now;
  return ctx.db
    .insert(cells)
    .values({
      id: ctx.ids.beside(table.id),
      tableId: table.id,
      rowId,
      columnId: column.id,
      workspaceId: table.workspaceId,
      isIdentifier: column.isIdentifier,
      data,
      createdAt: t,
      updatedAt: t,
    })
    .onConflictDoUpdate({
      target: [cells.rowId, cells.columnId],
      set: { data: sql`excluded.data`, isIdentifier: column.isIdentifier, isDeleted: false, updatedAt: t },
    });
}

/**
 * The same values into the given cells of several live rows of one table (an automation's row.update): access,
 * the rows and the columns in one batch (404 for a missing row or a column not of this table, 409 computed, 400
 * wrong type: nothing is written), every cell and the rows' updatedAt in one batch, then the rows' formula cells
 * recomputed in the table's coordinator and one row.updated event per row.
 */
export async function updateCells(
  ctx: ServiceContext,
  input: { tableId: string; rowIds: readonly string[]; values: Record<string, unknown> },
): Promise<{ table: TableRow }> {
  const columnIds = Object.keys(input.values);
  const [[tableRow], found, columnList] = await read(ctx, [
    tableAccessStatement(ctx.db, ctx.user.ref, input.tableId),
    ctx.db
      .select({ id: rows.id })
      .from(rows)
      .where(and(eq(rows.tableId, input.tableId), eq(rows.isDeleted, false), inJson(rows.id, input.rowIds))),
    ctx.db
      .select()
      .from(columns)
      .where(and(eq(columns.tableId, input.tableId), eq(columns.isDeleted, false), inJson(columns.id, columnIds))),
  ]);
  const { table } = checkTableAccess(tableRow, "write");
  if (found.length !== new Set(input.rowIds).size) throw notFound("Row");
  const byId = new Map(columnList.map((c) => [c.id, c]));
  const values: Record<string, unknown> = {};
  for (const columnId of columnIds) {
    const column = byId.get(columnId);
    if (!column) throw notFound("Column");
    values[columnId] = resolveSelectLabel(column, input.values[columnId]);
    checkCellWrite(column, values[columnId]);
  }
  if (input.rowIds.length === 0) return { table };
  const writes = input.rowIds.flatMap((rowId) =>
    columnIds.map((columnId) => cellUpsertStatement(ctx, table, rowId, byId.get(columnId)!, values[columnId])),
  );
  const d1 = d1Of(ctx.db);
  let staged = false;
  const log = rowChangeLog(ctx, d1, table).cells(
    input.rowIds.flatMap((rowId) => columnIds.map((columnId) => ["", rowId, columnId, 0, values[columnId]])),
    () => (staged = true),
  );
  await d1.batch([
    asD1(d1, ctx.db.update(rows).set({ updatedAt: ctx.now }).where(inJson(rows.id, input.rowIds))),
    ...log,
    ...writes.map((w) => asD1(d1, w)),
  ]);
  await recalculateFormulasAfterWrite(ctx.env, table.id, input.rowIds);
  emitAfterResponse(
    ctx,
    input.rowIds.map((rowId) => rowEvent("row.updated", table, rowId, columnIds)),
  );
  if (staged) foldAfterResponse(ctx, d1);
  return { table };
}
