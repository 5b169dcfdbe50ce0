/**
 * PATCH /table/{tableId}/rows and PATCH /table/row/{rowId} (docs/api-guide.md › Bulk writes): several cells of
 * 1–1,000 existing rows, all or nothing. One read batch (with authentication), one write batch (every cell, the
 * rows' updatedAt and a keyed request's kept answer), then the formulas and lookups recomputed once for all rows
 * and one row.updated event per row.
 */
import { ApiError, notFound, validation } from "../../../errors";
import type { ExpectedVersion } from "../../../lib/etag";
import { d1Of } from "../../../db/d1";
import { assertExpectedVersion } from "../../preconditions";
import { read, type ServiceContext } from "../../context";
import { checkTableAccess, tableAccessStatement } from "../../../auth/tableAccess";
import { foldAfterResponse } from "../../changes/staged";
import { liveColumnsQuery } from "../columns";
import { keptAnswerStatements } from "../../idempotency";
import { emitAfterResponse, rowEvent } from "../../events/events";
import { checkCellWrites } from "../cellValues";
import { computeNeeded, computeNeededStatement, recalculateFormulasAfterWrite } from "../recompute";
import { liveRowQuery, rowRepresentation, tableOfRow } from "../rowReads";
import { rowDto, type ColumnRow, type RowRow, type TableRow } from "../serialize";
import { resolveSelectLabels } from "./labels";
import { assertWritable, commitBatch, loggedCellUpserts, readForBulkWrite, rowsNotFound } from "./common";
import { guardStatement, touchRowsStatement, type CellEntry } from "../queries";

export interface RowUpdate {
  _id: string;
  cells: Record<string, unknown>;
  /** The row's ETag (GET /table/row/{rowId}): when given, a row changed since is 412 and nothing is written. */
  ifMatch?: string;
}

type RowWithCells = ReturnType<typeof rowDto> & { cells: Record<string, unknown> };

/** PATCH /table/{tableId}/rows. */
export async function updateRows(
  ctx: ServiceContext,
  input: { tableId: string; rows: readonly RowUpdate[] },
): Promise<{ table: TableRow; rows: RowWithCells[] }> {
  const ids = input.rows.map((r) => r._id);
  const seen = new Map<string, number>();
  const repeated = input.rows.flatMap((r, i) => {
    const first = seen.get(r._id);
    seen.set(r._id, first ?? i);
    return first === undefined ? [] : [{ path: `rows.${i}._id`, message: `the same row as rows.${first}` }];
  });
  if (repeated.length) throw validation("A row appears more than once", repeated);
  const { tableRow, table, columns, found } = await readForBulkWrite(ctx, { tableId: input.tableId, rowIds: ids });
  const byId = new Map(found.map((r) => [r.id, r]));
  const missing = ids.filter((id) => !byId.has(id));
  if (missing.length) throw rowsNotFound(missing, (id) => `rows.${ids.indexOf(id)}._id`);
  assertWritable(tableRow);
  for (const [i, r] of input.rows.entries()) {
    if (r.ifMatch === undefined) continue;
    await assertPrecondition([r.ifMatch], byId.get(r._id)!, `rows.${i}.ifMatch`);
  }
  const rowsById = input.rows.map((r) => byId.get(r._id)!);
  return writeRowUpdates(ctx, { table, columns, rows: rowsById, cells: input.rows.map((r) => r.cells) });
}

/** PATCH /table/row/{rowId}: the same write for one row; `expected` from If-Match (412, nothing written). */
export async function patchRow(
  ctx: ServiceContext,
  input: { rowId: string; cells: Record<string, unknown>; expected?: ExpectedVersion },
): Promise<{ table: TableRow; row: RowWithCells }> {
  const [[row], [tableRow], columns] = await read(ctx, [
    liveRowQuery(ctx.db, input.rowId),
    tableAccessStatement(ctx.db, ctx.user.ref, tableOfRow(input.rowId)),
    liveColumnsQuery(ctx.db, tableOfRow(input.rowId)),
  ]);
  if (!row) throw notFound("Row");
  const { table } = checkTableAccess(tableRow, "read", { as: "Row" });
  assertWritable(tableRow);
  await assertExpectedVersion(input.expected, () => rowRepresentation(row));
  const written = await writeRowUpdates(ctx, {
    table,
    columns,
    rows: [row],
    cells: [input.cells],
    pathOf: () => "cells",
    single: true,
  });
  return { table, row: written.rows[0]! };
}

async function assertPrecondition(tags: string[], row: RowRow, path: string) {
  try {
    await assertExpectedVersion(tags, () => rowRepresentation(row));
  } catch (err) {
    if (err instanceof ApiError)
      throw new ApiError(err.code, `${err.message} (${path})`, { details: [{ path, message: "the row has changed" }] });
    throw err;
  }
}

/** Checks every value (400 listing the problems, 409 computed), then writes them all in one batch. */
export async function writeRowUpdates(
  ctx: ServiceContext,
  opts: {
    table: TableRow;
    columns: ColumnRow[];
    rows: RowRow[];
    cells: readonly Record<string, unknown>[];
    pathOf?: (i: number) => string;
    single?: boolean;
  },
): Promise<{ table: TableRow; rows: RowWithCells[] }> {
  const { table, rows } = opts;
  const columnsById = new Map(opts.columns.map((c) => [c.id, c]));
  const inputs = resolveSelectLabels(columnsById, opts.cells);
  checkCellWrites(columnsById, inputs, opts.pathOf ?? ((i) => `rows.${i}.cells`));
  const t = ctx.now;
  const newId = ctx.ids.seriesBeside(table.id);
  const entries: CellEntry[] = rows.flatMap((row, i) =>
    Object.entries(inputs[i] ?? {}).map(([columnId, value]): CellEntry => {
      const column = columnsById.get(columnId)!;
      return [newId(), row.id, columnId, column.isIdentifier ? 1 : 0, value];
    }),
  );
  const answer = rows.map((r, i) => ({ ...rowDto({ ...r, updatedAt: t }), cells: { ...inputs[i] } }));
  const d1 = d1Of(ctx.db);
  const rowIds = rows.map((r) => r.id);
  const cellWrites = loggedCellUpserts(ctx, d1, table, entries);
  const results = await commitBatch(ctx, [
    touchRowsStatement(d1, table.id, t, rowIds),
    guardStatement(d1, table.id, rowIds.length),
    ...cellWrites.statements,
    // A crash before the answer leaves this one (the values written; formula values come with the final answer).
    ...(await keptAnswerStatements(ctx, { d1, payload: { data: opts.single ? answer[0] : answer } })),
    computeNeededStatement(d1, table.id, t),
  ]);
  const computed = await recalculateFormulasAfterWrite(ctx.env, table.id, rowIds, {
    needed: computeNeeded(results.at(-1)),
  });
  emitAfterResponse(
    ctx,
    rows.map((r, i) => rowEvent("row.updated", table, r.id, Object.keys(inputs[i] ?? {}))),
  );
  for (const a of answer) Object.assign(a.cells, computed.formulaCells[a._id] ?? {});
  // Last, so the fold's D1 work does not hold the recomputation's reads behind it.
  if (cellWrites.staged) foldAfterResponse(ctx, d1);
  return { table, rows: answer };
}
