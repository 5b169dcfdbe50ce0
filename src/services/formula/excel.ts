/**
 * Spreadsheet functions with Excel's documented semantics where @formulajs/formulajs departs from them or lacks
 * them (docs/api-guide.md › Formulas). Each entry replaces the library's function of that name in the
 * catalogue, or adds one the library does not have. Wherever the library has a correct routine (distributions,
 * PERCENTILE.INC, YEARFRAC) it is reused; only the semantics around it (optional arguments, which arguments
 * count, error cases) are written here.
 *
 * Arguments arrive as evaluator values: numbers, text, booleans, null (blank), errors (for the functions that
 * look at errors), dates as serial numbers, and arrays (a list, or rows of an array constant). A function with
 * `references: true` receives every column read as a one-item array, since a column of the row is a cell
 * reference: Excel's aggregates count only the numbers of a reference but coerce values typed as arguments
 * (`SUM("3", TRUE)` is 4, `SUM({Text column})` ignores its text).
 */
import type { ExcelFunction } from "./excel/shared";
import { CORE_FUNCTIONS } from "./excel/table-core";
import { STATISTICS_FUNCTIONS } from "./excel/table-statistics";
import { TEXT_DATE_FINANCE_FUNCTIONS } from "./excel/table-text";

export type { ExcelFunction };

/** Every Excel entry, in the order the parts list them (a later entry of the same name wins, as in one table). */
export const EXCEL_FUNCTIONS: Record<string, ExcelFunction> = {
  ...CORE_FUNCTIONS,
  ...STATISTICS_FUNCTIONS,
  ...TEXT_DATE_FINANCE_FUNCTIONS,
};
