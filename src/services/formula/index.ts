/** The formula engine (API.md §8): tree schemas, validation, evaluation, table computation, coordinator calls. */
export { ApplyFormulaBodySchema, DescriptionSchema, ExprSchema, ExpressionSchema, MAX_FORMULA_DEPTH, type Expr, type StoredFormula } from "./expression";
export { FUNCTION_CATALOG, lookupFunction } from "./functions";
export { compileFormula } from "./evaluate";
export { validateFormula } from "./validate";
export { applyFormulaToTable, recomputeRowFormulas, ROW_PAGE_SIZE, type ApplyFormulaResult, type CellWrite, type RecomputeResult } from "./engine";
export { applyFormulaThroughCoordinator, formulaCoordinator, recomputeRowsThroughCoordinator } from "./coordinator";
