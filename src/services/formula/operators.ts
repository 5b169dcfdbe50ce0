/**
 * Operators of the formula language with spreadsheet semantics (docs/api-guide.md › Formulas): `&` joins text,
 * comparisons follow compareValues, arithmetic coerces through toNumber with date ± days and date − date, and
 * arrays go element by element as Excel's array arithmetic does.
 */
import * as formulajs from "@formulajs/formulajs";
import { spreadsheetMod } from "./functions";
import { formulaLimits, MAX_TEXT } from "./limits";
import {
  addDays,
  compareValues,
  daysBetween,
  Errors,
  normalizeResult,
  toNumber,
  toText,
  type FormulaValue,
} from "./values";
import { charge, SPENT } from "./cellBudget";
import type { CompiledFormula } from "./evaluate";

/**
 * `columnOperand`: a column's list (multiSelect labels, linked rows) is one value to an operator, not an array to
 * go through element by element, so `{Tags} + 1` stays #VALUE!; array constants and function results broadcast.
 */
export function compileOperator(
  op: string,
  left: CompiledFormula,
  right: CompiledFormula,
  columnOperand = false,
): CompiledFormula {
  const elementwise = columnOperand
    ? (a: FormulaValue, b: FormulaValue, f: (a: FormulaValue, b: FormulaValue) => FormulaValue) => f(a, b)
    : broadcast;
  switch (op) {
    case "&":
      return (get) => {
        const a = toText(left(get));
        if (a instanceof Error) return a;
        const b = toText(right(get));
        if (b instanceof Error) return b;
        charge(1 + (a.length + b.length) / 64, false);
        return a.length + b.length > MAX_TEXT ? Errors.value : a + b;
      };
    case "=":
    case "<>":
    case "<":
    case "<=":
    case ">":
    case ">=":
      return (get) => {
        charge(1, false);
        return elementwise(left(get), right(get), (a, b) => {
          const c = compareValues(a, b);
          if (c instanceof Error) return c;
          switch (op) {
            case "=":
              return c === 0;
            case "<>":
              return c !== 0;
            case "<":
              return c < 0;
            case "<=":
              return c <= 0;
            case ">":
              return c > 0;
            default:
              return c >= 0;
          }
        });
      };
    default:
      return (get) => {
        charge(1, false);
        return elementwise(left(get), right(get), (a, b) => arithmetic(op, a, b));
      };
  }
}

/**
 * An operator over arrays, as Excel's array arithmetic: element by element (`{1,2} * {3,4}` is {3,8}), a single
 * value or one-item array against each element, and #N/A where one array is shorter than the other.
 */
function broadcast(
  a: FormulaValue,
  b: FormulaValue,
  f: (a: FormulaValue, b: FormulaValue) => FormulaValue,
): FormulaValue {
  if (!Array.isArray(a) && !Array.isArray(b)) return f(a, b);
  if (a instanceof Error) return a;
  if (b instanceof Error) return b;
  // Every element produced is counted: a row against a column makes their product, past the list cap #LIMIT!.
  let produced = 0;
  const leaf = (x: FormulaValue, y: FormulaValue) => {
    if (++produced > formulaLimits.arrayElements) throw SPENT;
    charge(1, false);
    return f(x, y);
  };
  const zip = (x: FormulaValue, y: FormulaValue): FormulaValue => {
    if (!Array.isArray(x) && !Array.isArray(y)) return leaf(x, y);
    if (!Array.isArray(x)) return (y as FormulaValue[]).map((v) => zip(x, v));
    if (!Array.isArray(y)) return x.map((v) => zip(v, y));
    if (x.length === 1 && y.length !== 1) return y.map((v) => zip(x[0]!, v));
    if (y.length === 1 && x.length !== 1) return x.map((v) => zip(v, y[0]!));
    return Array.from({ length: Math.max(x.length, y.length) }, (_, i) =>
      i < x.length && i < y.length ? zip(x[i]!, y[i]!) : Errors.na,
    );
  };
  return zip(a, b);
}

function arithmetic(op: string, a: FormulaValue, b: FormulaValue): FormulaValue {
  if (a instanceof Error) return a;
  if (b instanceof Error) return b;
  if (op === "+" || op === "-") {
    if (a instanceof Date && !(b instanceof Date)) {
      const n = toNumber(b);
      return n instanceof Error ? n : normalizeResult(addDays(a, op === "+" ? n : -n));
    }
    if (op === "+" && b instanceof Date && !(a instanceof Date)) {
      const n = toNumber(a);
      return n instanceof Error ? n : normalizeResult(addDays(b, n));
    }
    if (op === "-" && a instanceof Date && b instanceof Date) return normalizeResult(daysBetween(a, b));
  }
  const x = toNumber(a);
  if (x instanceof Error) return x;
  const y = toNumber(b);
  if (y instanceof Error) return y;
  switch (op) {
    case "+":
      return normalizeResult(x + y);
    case "-":
      return normalizeResult(x - y);
    case "*":
      return normalizeResult(x * y);
    case "/":
      return y === 0 ? Errors.div0 : normalizeResult(x / y);
    case "%":
      return normalizeResult(spreadsheetMod(x, y));
    case "^":
      return normalizeResult(formulajs.POWER(x, y));
    default:
      return Errors.value;
  }
}
