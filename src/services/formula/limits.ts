/**
 * Resource bounds of formulas (docs/api-guide.md, "Resource bounds"): what one cell and one table computation
 * may cost, and the terms an argument bound is written in (its shape and the predicates that test arguments).
 * The argument bounds of every library function whose cost grows with an argument are in ./argumentBounds.ts.
 */
import { toText, type FormulaValue } from "./values";

export const formulaLimits = {
  /** One cell: evaluation time (where the clock advances during execution), ... */
  cellMs: 50,
  /** ... the same budget as a count of work (evaluator steps and array elements), for runtimes whose clock stands still while code runs, ... */
  cellUnits: 2_000_000,
  /** ... and the size of its stored JSON value. */
  cellBytes: 100_000,
  /** Array elements any one step of a formula may produce or receive (a LOOKUP over more linked rows is #LIMIT!). */
  arrayElements: 10_000,
  /** One table computation (an apply, or a row write's recalculation): evaluation time, ... */
  runMs: 20_000,
  /** ... work, ... */
  runUnits: 400_000_000,
  /** ... and bytes of computed values held for its one atomic write. */
  runBytes: 32 * 1024 * 1024,
  /** Evaluation between two yields to the event loop, so other requests in the isolate are served meanwhile. */
  sliceMs: 20,
  sliceUnits: 800_000,
};

/** Spreadsheet text limit; REPT and `&` refuse longer results. */
export const MAX_TEXT = 32_767;

/** Work units charged per array element a library call receives or returns (one unit is about 25 ns). */
export const ELEMENT_UNITS = 16;
/** Work units charged when a library call throws (a stack overflow in its recursion costs tens of milliseconds). */
export const THROW_UNITS = 800_000;
/** Work units of one library call besides its elements. */
export const CALL_UNITS = 20;

export type Num = (index: number) => number | undefined;
export type Size = (index: number) => number;

export interface ArgumentBound {
  functions: readonly string[];
  /** The rule in words, as docs/api-guide.md lists it; absent for a cost estimate alone. */
  rule?: string;
  /** Whether the call's arguments pass the bound (numbers read as arithmetic does; text and lists are not numbers). */
  exceeds?: (num: Num, args: readonly FormulaValue[]) => boolean;
  /** The error past the bound (default #NUM!). */
  error?: "#VALUE!";
  /**
   * The call's work in units, charged before it runs when the function's cost grows faster than its inputs'
   * size (a loop over an argument's value, a product of two lists): a call the cell cannot afford is #LIMIT!
   * without running. Measured with `npm run bench -- formula-bounds --units`.
   */
  cost?: (num: Num, size: Size, count: number, args: readonly FormulaValue[]) => number;
  /** A call inside the bound and one just past it (the tests evaluate both). */
  example?: { inside: Array<number | string | boolean>; past: Array<number | string | boolean> };
}

export const abs = (v: number | undefined) => (v === undefined ? 0 : Math.abs(v));
export const over =
  (limit: number, ...indexes: number[]) =>
  (num: Num) =>
    indexes.some((i) => !(abs(num(i)) <= limit));
/** Whether any of the arguments lies outside [lo, hi] (NaN included). */
export const outside =
  (lo: number, hi: number, ...indexes: number[]) =>
  (num: Num) =>
    indexes.some((i) => {
      const v = num(i);
      return v !== undefined && !(v >= lo && v <= hi);
    });
/** The largest magnitude among the arguments (bounded ones, so the product stays finite). */
export const largest = (num: Num, ...indexes: number[]) => Math.max(0, ...indexes.map((i) => abs(num(i))));

/** Characters of an argument read as text (a list: all its items), for costs that grow with text length. */
export const textLength = (v: FormulaValue | undefined): number => {
  if (v === undefined || v === null || v instanceof Error) return 0;
  if (Array.isArray(v)) return v.reduce<number>((n, x) => n + textLength(x), 0);
  const t = toText(v);
  return typeof t === "string" ? t.length : 0;
};
/** Items of an argument (1 for a scalar, nested lists counted through). */
export const itemCount = (v: FormulaValue | undefined): number =>
  v === undefined ? 0 : Array.isArray(v) ? v.reduce<number>((n, x) => n + itemCount(x), 0) : 1;
