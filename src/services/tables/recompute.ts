import type { Env } from "../../env";
import { recomputeRowsThroughCoordinator } from "../formula/coordinator";
import type { RecomputeResult } from "../formula/engine";

/**
 * Formula recalculation after a row or cell write (docs/api-guide.md › Tables, columns, rows, cells "Formula cells of the row are recomputed in the
 * same request"; › Formulas). Called, and awaited, by row create, bulk row create and cell upsert once their batch has
 * committed, and returns what the run computed (the rows' formula values; with `returnCells` their stored Cell
 * records too) so the response can carry them (issue 14). It runs inside the table's formula coordinator even when the table has no formula column yet:
 * skipping it on a check made outside the coordinator could miss a column an in-flight E3 apply is creating,
 * whose page reads may already have passed these rows.
 */
export async function recalculateFormulasAfterWrite(
  env: Env,
  tableId: string,
  rowIds: readonly string[],
  opts: { returnCells?: boolean } = {},
): Promise<RecomputeResult> {
  if (rowIds.length === 0)
    return { updatedRows: 0, formulaCells: {}, ...(opts.returnCells && { formulaCellRecords: [] }) };
  return recomputeRowsThroughCoordinator(env, {
    tableId,
    rowIds: [...rowIds],
    ...(opts.returnCells && { returnCells: true }),
  });
}

/**
 * After a change to `tableId` that recomputes none of its own formula cells (a row deleted, a column's options
 * changed or the column deleted): the tables whose lookups read it recompute them, through its coordinator,
 * which knows them.
 */
export async function recalculateLookupsReading(env: Env, tableId: string): Promise<void> {
  await recomputeRowsThroughCoordinator(env, { tableId, rowIds: [] });
}
