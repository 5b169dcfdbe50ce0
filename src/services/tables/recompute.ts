import type { Env } from "../../env";
import { recomputeRowsThroughCoordinator } from "../formula/coordinator";

/**
 * Formula recalculation after a row or cell write (API.md §7 "Formula cells of the row are recomputed in the
 * same request", §8). Called, and awaited, by row create, bulk row create and cell upsert once their batch has
 * committed. It runs inside the table's formula coordinator even when the table has no formula column yet:
 * skipping it on a check made outside the coordinator could miss a column an in-flight E3 apply is creating,
 * whose page reads may already have passed these rows.
 */
export async function recalculateFormulasAfterWrite(env: Env, tableId: string, rowIds: readonly string[]): Promise<void> {
  if (rowIds.length === 0) return;
  await recomputeRowsThroughCoordinator(env, { tableId, rowIds: [...rowIds] });
}
