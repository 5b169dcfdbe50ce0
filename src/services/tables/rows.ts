/**
 * Writing rows and their cell values; reads are in ./rowReads.ts. Writes of many rows are one D1 batch of a few
 * statements (./queries.ts rowInsertStatements), so 1000 rows commit or fail together.
 */
import { ApiError, notFound } from "../../errors";
import type { ExpectedVersion } from "../../lib/etag";
import { assertExpectedVersion } from "../preconditions";
import { d1Of, statement } from "../../db/d1";
import { checkTableAccess, tableAccessStatement } from "../../auth/tableAccess";
import { read, type ServiceContext } from "../context";
import { keptAnswerStatements } from "../idempotency";
import { emitAfterResponse, rowEvent } from "../events/events";
import type { StoredCell } from "../formula/engine";
import { checkCellWrites } from "./cellValues";
import { resolveSelectLabels } from "./bulk/labels";
import { liveColumnsQuery } from "./columns";
import { recalculateFormulasAfterWrite, recalculateLookupsReading } from "./recompute";
import { liveRowQuery, rowRepresentation, tableOfRow } from "./rowReads";
import { cellDto, rowDto, type CellRow, type ColumnRow, type RowRow, type TableRow } from "./serialize";
import { rowChangeLog } from "../changes/log";
import { foldAfterResponse } from "../changes/staged";
import { deleteCreatedRowsStatements, rowInsertStatements } from "./queries";

export const MAX_BULK_ROWS = 1000;

const SOFT_DELETE = `UPDATE rows SET is_deleted = 1, updated_at = ?2
  WHERE table_id = ?1 AND id IN (SELECT value FROM json_each(?3))`;

export interface CreatedRows {
  rows: RowRow[];
  /** Per row, the values stored by this write (columns without a value are absent). */
  written: Record<string, unknown>[];
  /** Per row, the Cell records this write stored. */
  cells: CellRow[][];
  /** Per row id, every formula column's value as computed in this request (null when blank). */
  formulaCells: Record<string, Record<string, unknown>>;
  /** With `returnCells`: the stored formula Cell records of the new rows after recalculation. */
  formulaCellRecords: StoredCell[];
}

/**
 * Validates every row's cells (400 listing the problems, 409 for computed columns: nothing is written), then
 * writes all rows and cells in one atomic D1 batch and runs the formula hook for the new rows.
 */
export async function insertRows(
  ctx: ServiceContext,
  opts: {
    /** A table the caller may write (checked in the caller's batch), and each row's values by column id. */
    table: TableRow;
    rows: readonly (Record<string, unknown> | undefined)[];
    pathOf?: (index: number) => string;
    columns?: ColumnRow[];
    returnCells?: boolean;
    /** Statements that commit with the rows (a keyed request's answer, services/idempotency.ts keptAnswerStatements). */
    keep?: (
      created: { rows: RowRow[]; cells: CellRow[][]; written: Record<string, unknown>[] },
      d1: D1Database,
    ) => Promise<D1PreparedStatement[]>;
  },
): Promise<CreatedRows> {
  const { table, rows: inputs } = opts;
  const columnList = opts.columns ?? (await liveColumnsQuery(ctx.db, table.id));
  const columnsById = new Map(columnList.map((c) => [c.id, c]));
  const writes = checkCellWrites(
    columnsById,
    resolveSelectLabels(columnsById, inputs),
    opts.pathOf ?? ((i) => `rows.${i}.cells`),
  );
  const t = ctx.now;
  const { newRows, cellRecords } = newRecords(ctx, table, writes);
  // The request's own D1 session (counted, bookmarked) — the same database the Drizzle client reaches.
  const d1 = d1Of(ctx.db);
  const written = writes.map((ws) => Object.fromEntries(ws.map((w) => [w.column.id, w.value])));
  let staged = false;
  const statements = [
    ...rowInsertStatements(
      d1,
      table,
      ctx.user.id,
      t,
      newRows.map((r) => r.id),
      cellRecords.flat().map((w) => [w.id, w.rowId, w.columnId, w.isIdentifier ? 1 : 0, w.data]),
    ),
    ...rowChangeLog(ctx, d1, table).created(
      newRows.map((r, i) => [r.id, written[i]!]),
      { staged: () => (staged = true) },
    ),
    ...(opts.keep ? await opts.keep({ rows: newRows, cells: cellRecords, written }, d1) : []),
  ];
  // The rows are inserted only while the table is live, the cells only with their rows (the same statements):
  // a delete of the table that ran first leaves nothing written, and the answer is 404.
  const [insertedRows] = await d1.batch(statements);
  if (newRows.length > 0 && (insertedRows?.meta.changes ?? 0) === 0) throw notFound("Table");
  const rowIds = newRows.map((r) => r.id);
  const computed = await recalculateOrUndo(ctx, d1, table.id, rowIds, opts.returnCells);
  if (staged) foldAfterResponse(ctx, d1);
  return {
    rows: newRows,
    written,
    cells: cellRecords,
    formulaCells: computed.formulaCells,
    formulaCellRecords: computed.formulaCellRecords ?? [],
  };
}

/** The row and Cell records a create stores: ids beside the table's (its shard), stamped with the request's time. */
function newRecords(ctx: ServiceContext, table: TableRow, writes: ReturnType<typeof checkCellWrites>) {
  const t = ctx.now;
  const newId = ctx.ids.seriesBeside(table.id);
  const newRows: RowRow[] = writes.map(() => ({
    id: newId(),
    tableId: table.id,
    projectId: table.projectId,
    workspaceId: table.workspaceId,
    ownerId: ctx.user.id,
    originId: "",
    seq: 0,
    isDeleted: false,
    createdAt: t,
    updatedAt: t,
  }));
  const cellRecords: CellRow[][] = writes.map((ws, i) =>
    ws.map((w) => ({
      id: newId(),
      tableId: table.id,
      rowId: newRows[i]!.id,
      columnId: w.column.id,
      workspaceId: table.workspaceId,
      originId: "",
      isIdentifier: w.column.isIdentifier,
      data: w.value,
      isDeleted: false,
      createdAt: t,
      updatedAt: t,
    })),
  );
  return { newRows, cellRecords };
}

/** The formula hook for created rows; when their table is gone by then (404), the rows are deleted again. */
async function recalculateOrUndo(
  ctx: ServiceContext,
  d1: D1Database,
  tableId: string,
  rowIds: string[],
  returnCells: boolean | undefined,
) {
  let computed: Awaited<ReturnType<typeof recalculateFormulasAfterWrite>>;
  try {
    computed = await recalculateFormulasAfterWrite(ctx.env, tableId, rowIds, { returnCells });
  } catch (err) {
    // The table was deleted between the insert and the recomputation: a create that answers an error leaves
    // nothing behind, so the rows it inserted go again (they were never visible: every read joins the live table).
    if (err instanceof ApiError && err.code === "NotFoundError") {
      await d1.batch(deleteCreatedRowsStatements(d1, tableId, rowIds));
    }
    throw err;
  }
  return computed;
}

/** Soft-deletes a row (its cells vanish); `expected` is compared with the row's E16 representation (412, nothing changed). */
export async function deleteRow(
  ctx: ServiceContext,
  input: { rowId: string; expected?: ExpectedVersion },
): Promise<{ row: RowRow; table: TableRow }> {
  const [[row], [tableRow]] = await read(ctx, [
    liveRowQuery(ctx.db, input.rowId),
    tableAccessStatement(ctx.db, ctx.user.ref, tableOfRow(input.rowId)),
  ]);
  if (!row) throw notFound("Row");
  const { table } = checkTableAccess(tableRow, "write", { as: "Row" });
  await assertExpectedVersion(input.expected, () => rowRepresentation(row));
  await softDeleteRows(ctx, table, [row.id]);
  return { row, table };
}

/** Soft-deletes live rows of one table (an automation's row.delete): their cells vanish, one row.deleted event each. */
export async function deleteRows(
  ctx: ServiceContext,
  input: { tableId: string; rowIds: readonly string[] },
): Promise<{ table: TableRow }> {
  const [[tableRow]] = await read(ctx, [tableAccessStatement(ctx.db, ctx.user.ref, input.tableId)]);
  const { table } = checkTableAccess(tableRow, "write");
  await softDeleteRows(ctx, table, input.rowIds);
  return { table };
}

async function softDeleteRows(ctx: ServiceContext, table: TableRow, rowIds: readonly string[]) {
  if (rowIds.length === 0) return;
  const d1 = d1Of(ctx.db);
  await d1.batch([
    ...rowChangeLog(ctx, d1, table).state(rowIds, true),
    statement(d1, SOFT_DELETE, table.id, ctx.now, JSON.stringify(rowIds)),
  ]);
  // Lookups in other tables that listed these rows are recomputed before the answer.
  await recalculateLookupsReading(ctx.env, table.id);
  emitAfterResponse(
    ctx,
    rowIds.map((id) => rowEvent("row.deleted", table, id)),
  );
}

/** Access and the table's live columns in one batch: what row creation checks values against. */
async function writableTableWithColumns(ctx: ServiceContext, tableId: string) {
  const [[tableRow], columnList] = await read(ctx, [
    tableAccessStatement(ctx.db, ctx.user.ref, tableId),
    liveColumnsQuery(ctx.db, tableId),
  ]);
  return { table: checkTableAccess(tableRow, "write").table, columns: columnList };
}

function sortByColumn<T extends { columnId: string }>(list: T[]): T[] {
  return list.sort((a, b) => (a.columnId < b.columnId ? -1 : a.columnId > b.columnId ? 1 : 0));
}

/**
 * POST /table/{tableId}/row: the row and the Cell records stored for it — the client's values and the formula
 * cells computed in this request (issue 14), by column id. Three D1 round trips with authentication; the
 * recalculation runs in the table's formula coordinator.
 */
export async function createRow(
  ctx: ServiceContext,
  input: {
    tableId: string;
    cells?: Record<string, unknown>;
    /** Where `cells` is in the caller's input, for error details. */ cellsPath?: string;
  },
) {
  const { table, columns: columnList } = await writableTableWithColumns(ctx, input.tableId);
  const created = await insertRows(ctx, {
    table,
    rows: [input.cells],
    columns: columnList,
    returnCells: true,
    pathOf: () => input.cellsPath ?? "cells",
    // A crash before the answer leaves this one (the row and the values given; formula cells come with the final answer).
    keep: (c, d1) =>
      keptAnswerStatements(ctx, {
        d1,
        payload: { data: { row: rowDto(c.rows[0]!), cells: sortByColumn(c.cells[0]!).map(cellDto) } },
      }),
  });
  const row = created.rows[0]!;
  emitAfterResponse(ctx, [rowEvent("row.created", table, row.id, Object.keys(input.cells ?? {}))]);
  const stored = sortByColumn([...created.cells[0]!, ...created.formulaCellRecords.filter((c) => c.rowId === row.id)]);
  return { table, row: rowDto(row), cells: stored.map(cellDto) };
}

/**
 * POST /table/{tableId}/rows: 1–1000 rows, all or nothing; each row's `cells` are the values this call stored
 * plus its formula cells as computed in this request (null when blank).
 */
export async function bulkCreateRows(
  ctx: ServiceContext,
  {
    cellsPath,
    ...input
  }: {
    tableId: string;
    rows: readonly (Record<string, unknown> | undefined)[];
    /** Where every row's `cells` is in the caller's input, when they share one (alike automation actions). */ cellsPath?: string;
  },
) {
  const { table, columns: columnList } = await writableTableWithColumns(ctx, input.tableId);
  const created = await insertRows(ctx, {
    table,
    rows: input.rows,
    columns: columnList,
    ...(cellsPath !== undefined && { pathOf: () => cellsPath }),
    // A crash before the answer leaves this one (the values given; formula values come with the final answer).
    keep: (c, d1) =>
      keptAnswerStatements(ctx, {
        d1,
        payload: { data: { rows: c.rows.map((r, i) => ({ ...rowDto(r), cells: c.written[i]! })) } },
      }),
  });
  emitAfterResponse(
    ctx,
    created.rows.map((r, i) => rowEvent("row.created", table, r.id, Object.keys(created.written[i] ?? {}))),
  );
  return {
    table,
    rows: created.rows.map((r, i) => ({
      ...rowDto(r),
      cells: { ...created.written[i]!, ...(created.formulaCells[r.id] ?? {}) },
    })),
    written: created.written,
  };
}
