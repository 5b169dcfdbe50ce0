/**
 * POST /table/{tableId}/rows/delete and …/rows/restore (docs/api-guide.md › Bulk writes): up to 1,000 rows soft-deleted
 * or brought back in one batch with a keyed request's kept answer; an id that is no row of the table in the expected
 * state (live to delete, deleted to restore) is 404 and nothing is written. Lookups elsewhere that read the rows are
 * recomputed before the answer; each row emits row.deleted (delete) or row.created (restore: the row is back).
 */
import { validation } from "../../../errors";
import { d1Of } from "../../../db/d1";
import type { ServiceContext } from "../../context";
import { keptAnswerStatements } from "../../idempotency";
import { emitAfterResponse, rowEvent } from "../../events/events";
import { rowChangeLog } from "../../changes/log";
import { recalculateFormulasAfterWrite, recalculateLookupsReading } from "../recompute";
import { guardStatement, setDeletedStatement } from "../queries";
import { assertWritable, commitBatch, readForBulkWrite, rowsNotFound } from "./common";

async function setDeleted(ctx: ServiceContext, input: { tableId: string; ids: readonly string[] }, deleted: boolean) {
  const ids = [...new Set(input.ids)];
  if (ids.length !== input.ids.length)
    throw validation("An id appears more than once", [{ path: "ids", message: "repeated id" }]);
  const { tableRow, table, found } = await readForBulkWrite(ctx, {
    tableId: input.tableId,
    rowIds: ids,
    deleted: !deleted,
  });
  const present = new Set(found.map((r) => r.id));
  const missing = ids.filter((id) => !present.has(id));
  if (missing.length) throw rowsNotFound(missing, (id) => `ids.${ids.indexOf(id)}`);
  assertWritable(tableRow);
  const d1 = d1Of(ctx.db);
  const data = { ids };
  await commitBatch(ctx, [
    ...rowChangeLog(ctx, d1, table).state(ids, deleted),
    setDeletedStatement(d1, table.id, ids, deleted, ctx.now),
    guardStatement(d1, table.id, ids.length),
    ...(await keptAnswerStatements(ctx, { d1, payload: { data } })),
  ]);
  // A restored row's formulas are recomputed (columns may have changed while it was away), with the lookups reading it.
  if (deleted) await recalculateLookupsReading(ctx.env, table.id);
  else await recalculateFormulasAfterWrite(ctx.env, table.id, ids);
  emitAfterResponse(
    ctx,
    ids.map((id) => rowEvent(deleted ? "row.deleted" : "row.created", table, id)),
  );
  return { table, data };
}

export const bulkDeleteRows = (ctx: ServiceContext, input: { tableId: string; ids: readonly string[] }) =>
  setDeleted(ctx, input, true);

export const bulkRestoreRows = (ctx: ServiceContext, input: { tableId: string; ids: readonly string[] }) =>
  setDeleted(ctx, input, false);
