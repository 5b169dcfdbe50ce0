/**
 * Callers' side of the per-table formula coordinator: every computation of a table's formula cells goes
 * through its Durable Object so it serializes with applies. Errors come back as data and are rethrown here as
 * the ApiError they were.
 */
import type { Env } from "../../env";
import { ApiError } from "../../errors";
import type { ApplyFormulaPayload, CoordinatorResult, RecomputeRowsPayload } from "../../durable/TableFormulaCoordinator";
import type { ApplyFormulaResult, RecomputeResult } from "./engine";

export function formulaCoordinator(env: Pick<Env, "TABLE_FORMULA">, tableId: string) {
  return env.TABLE_FORMULA.get(env.TABLE_FORMULA.idFromName(tableId));
}

function unwrap<T>(result: CoordinatorResult<T>): T {
  if (result.ok) return result.value;
  throw new ApiError(result.error.code, result.error.message, { details: result.error.details });
}

/** E3 through the table's coordinator: 404 / 409 / 422 as ApiError, else `{ updatedRows }`. */
export async function applyFormulaThroughCoordinator(env: Pick<Env, "TABLE_FORMULA">, payload: ApplyFormulaPayload): Promise<ApplyFormulaResult> {
  const result = (await formulaCoordinator(env, payload.tableId).applyFormula(payload)) as CoordinatorResult<ApplyFormulaResult>;
  return unwrap(result);
}

/**
 * For the row and cell routes: stores `writes` and recomputes every formula cell of `rowIds` (plus the written
 * rows) inside the table's coordinator, so the write cannot be lost to a concurrent apply.
 */
export async function recomputeRowsThroughCoordinator(env: Pick<Env, "TABLE_FORMULA">, payload: RecomputeRowsPayload): Promise<RecomputeResult> {
  const result = (await formulaCoordinator(env, payload.tableId).recomputeRows(payload)) as CoordinatorResult<RecomputeResult>;
  return unwrap(result);
}
