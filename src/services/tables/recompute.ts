import type { Env } from "../../env";
import { statement } from "../../db/d1";
import { recomputeRowsThroughCoordinator } from "../formula/coordinator";
import type { RecomputeResult } from "../formula/engine";
import { DEPENDENT_TABLES } from "../formula/queries";

/**
 * Whether a write to `tableId` needs its recomputation, read in the write's own batch AFTER its writes: the table has
 * a formula column, a table looks into it, or a computation of its cells from its rows may be under way (its
 * coordinator marks it busy before reading any row: tables.formula_busy_until). When none holds, no formula can read
 * what the write stored, and a computation starting later reads it; the coordinator is then not called at all.
 */
export function computeNeededStatement(d1: D1Database, tableId: string, now: number): D1PreparedStatement {
  return statement(
    d1,
    `SELECT (EXISTS (SELECT 1 FROM columns WHERE table_id = ?1 AND is_deleted = 0 AND json_extract(data, '$.type') = 'formula')
      OR EXISTS (SELECT 1 FROM tables WHERE id = ?1 AND formula_busy_until > ?2)
      OR EXISTS (${DEPENDENT_TABLES})) AS needed`,
    tableId,
    now,
  );
}

/** The answer of computeNeededStatement in a batch's results. */
export const computeNeeded = (result: D1Result | undefined) =>
  Boolean((result?.results[0] as { needed?: number } | undefined)?.needed ?? true);

/**
 * Formula recalculation after a row or cell write (docs/api-guide.md › Tables, columns, rows, cells "Formula cells of the row are recomputed in the
 * same request"; › Formulas). Called, and awaited, by row create, bulk row create and cell upsert once their batch has
 * committed, and returns what the run computed (the rows' formula values; with `returnCells` their stored Cell
 * records too) so the response can carry them (issue 14). It runs inside the table's formula coordinator even when the table has no formula column yet:
 * skipping it on a check made outside the coordinator could miss a column an in-flight E3 apply is creating,
 * whose page reads may already have passed these rows. The one check that may skip it is made inside the write's
 * own batch (computeNeededStatement, `needed: false`): the apply marks the table busy before its reads.
 */
export async function recalculateFormulasAfterWrite(
  env: Env,
  tableId: string,
  rowIds: readonly string[],
  opts: { returnCells?: boolean; needed?: boolean } = {},
): Promise<RecomputeResult> {
  if (rowIds.length === 0 || opts.needed === false)
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
