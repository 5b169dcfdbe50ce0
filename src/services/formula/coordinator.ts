/**
 * Callers' side of the per-table formula coordinator: every computation of a table's formula cells goes
 * through its Durable Object so it serializes with applies. Errors come back as data and are rethrown here as
 * the ApiError they were.
 */
import type { Env } from "../../env";
import { ApiError } from "../../errors";
import type {
  ApplyFormulaPayload,
  CoordinatorResult,
  RecomputeLookupsPayload,
  RecomputeRowsPayload,
} from "../../durable/TableFormulaCoordinator";
import type { ApplyFormulaResult, RecomputeResult } from "./engine";

export function formulaCoordinator(env: Pick<Env, "TABLE_FORMULA">, tableId: string) {
  return env.TABLE_FORMULA.get(env.TABLE_FORMULA.idFromName(tableId));
}

function unwrap<T>(result: CoordinatorResult<T>): T {
  if (result.ok) return result.value;
  throw new ApiError(result.error.code, result.error.message, { details: result.error.details });
}

/** E3 through the table's coordinator: 404 / 409 / 422 as ApiError, else `{ updatedRows }`. */
export async function applyFormulaThroughCoordinator(
  env: Pick<Env, "TABLE_FORMULA">,
  payload: ApplyFormulaPayload,
): Promise<ApplyFormulaResult> {
  const result = unwrap(
    (await formulaCoordinator(env, payload.tableId).applyFormula(payload)) as CoordinatorResult<ApplyFormulaResult>,
  );
  await recomputeDependentTables(env, payload.tableId, result.dependentTables);
  return result;
}

/**
 * After a change to `tableId` has committed: every table whose lookups read it recomputes them in its own
 * coordinator, awaited, so no lookup is stale once the write answers. Outside this table's queue, so two tables
 * looking into each other cannot wait on each other; lookups are one level deep, so it stops there.
 */
export async function recomputeDependentTables(
  env: Pick<Env, "TABLE_FORMULA">,
  tableId: string,
  dependentTables: readonly string[] | undefined,
): Promise<void> {
  if (!dependentTables || dependentTables.length === 0) return;
  await Promise.all(
    dependentTables.map((id) => recomputeLookupsThroughCoordinator(env, { tableId: id, fromTableId: tableId })),
  );
}

/** The lookups of `payload.tableId` (into `fromTableId`, or through `relationId`), recomputed in its coordinator. */
export async function recomputeLookupsThroughCoordinator(
  env: Pick<Env, "TABLE_FORMULA">,
  payload: RecomputeLookupsPayload,
): Promise<ApplyFormulaResult> {
  return unwrap(
    (await formulaCoordinator(env, payload.tableId).recomputeLookups(payload)) as CoordinatorResult<ApplyFormulaResult>,
  );
}

/**
 * For the row and cell routes: stores `writes` and recomputes every formula cell of `rowIds` (plus the written
 * rows) inside the table's coordinator, so the write cannot be lost to a concurrent apply.
 */
export async function recomputeRowsThroughCoordinator(
  env: Pick<Env, "TABLE_FORMULA">,
  payload: RecomputeRowsPayload,
): Promise<RecomputeResult> {
  const result = unwrap(
    (await formulaCoordinator(env, payload.tableId).recomputeRows(payload)) as CoordinatorResult<RecomputeResult>,
  );
  await recomputeDependentTables(env, payload.tableId, result.dependentTables);
  return result;
}
