/** Evaluating the formulas of the Excel corpus (test/support/formula/corpus/excel.json) and comparing their answers. */
import { compileFormula } from "../../../src/services/formula/evaluate";
import { parseFormula } from "../../../src/services/formula/resolve";
import { dateToSerial, valueToCell, type FormulaValue } from "../../../src/services/formula/values";

export interface CorpusCase {
  f: string;
  excel: unknown;
}

/** A result as the corpus writes it: dates as serial numbers, errors as `{ error }`, an array by its first item. */
export function corpusValue(v: FormulaValue): unknown {
  if (Array.isArray(v)) return v.length ? corpusValue(v.flat(Infinity as 1)[0] as FormulaValue) : null;
  if (v instanceof Date) return dateToSerial(v);
  return valueToCell(v);
}

export function sameValue(got: unknown, want: unknown): boolean {
  if (typeof got === "number" && typeof want === "number")
    return Math.abs(got - want) <= 1e-9 * Math.max(1, Math.abs(want));
  return JSON.stringify(got) === JSON.stringify(want);
}

export function evaluateText(text: string): unknown {
  const { expr } = parseFormula(text, []);
  return corpusValue(compileFormula(expr)(() => null));
}
