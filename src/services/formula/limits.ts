/**
 * Resource bounds of formulas (docs/api-guide.md, "Resource bounds"): what one cell and one table computation
 * may cost, and the argument bounds of every library function whose cost grows with an argument.
 *
 * The argument bounds were found by evaluating every function of the catalogue at growing arguments
 * (`npm run bench -- formula-bounds`); each one keeps its function's worst call to a few milliseconds, well
 * inside the per-cell budget, so no single library call can hold the isolate or exhaust its memory. A call past
 * a bound answers #NUM! (text repetition #VALUE!, as spreadsheets do) before the library runs.
 */
import { Errors, toNumber, toText, type FormulaValue } from "./values";

export const formulaLimits = {
  /** One cell: evaluation time (where the clock advances during execution), ... */
  cellMs: 50,
  /** ... the same budget as a count of work (evaluator steps and array elements), for runtimes whose clock stands still while code runs, ... */
  cellUnits: 2_000_000,
  /** ... and the size of its stored JSON value. */
  cellBytes: 100_000,
  /** Array elements any one step of a formula may produce or hold (a 100 KB value holds far fewer). */
  arrayElements: 50_000,
  /** One table computation (an apply, or a row write's recalculation): evaluation time, ... */
  runMs: 15_000,
  /** ... work, ... */
  runUnits: 600_000_000,
  /** ... and bytes of computed values held for its one atomic write. */
  runBytes: 32 * 1024 * 1024,
  /** Evaluation between two yields to the event loop, so other requests in the isolate are served meanwhile. */
  sliceMs: 20,
  sliceUnits: 800_000,
};

/** Spreadsheet text limit; REPT and `&` refuse longer results. */
export const MAX_TEXT = 32_767;

export interface ArgumentBound {
  functions: readonly string[];
  /** The rule in words, as docs/api-guide.md lists it. */
  rule: string;
  /** Whether the call's arguments pass the bound (numbers read as arithmetic does; text and lists are not numbers). */
  exceeds: (num: (index: number) => number | undefined, args: readonly FormulaValue[]) => boolean;
  /** The error past the bound (default #NUM!). */
  error?: "#VALUE!";
  /** A call inside the bound and one just past it (the tests evaluate both). */
  example: { inside: Array<number | string | boolean>; past: Array<number | string | boolean> };
}

const abs = (v: number | undefined) => (v === undefined ? 0 : Math.abs(v));
const over = (limit: number, ...indexes: number[]) => (num: (i: number) => number | undefined) => indexes.some((i) => abs(num(i)) > limit);

/** Every argument bound, one row per rule. */
export const ARGUMENT_BOUNDS: readonly ArgumentBound[] = [
  {
    functions: ["REPT"],
    rule: "the result's length (text length × count) at most 32,767 characters; a negative count is #VALUE!",
    exceeds: (num, args) => {
      const t = toText(args[0] ?? null);
      const n = num(1);
      return n !== undefined && typeof t === "string" && (n < 0 || t.length * n > MAX_TEXT);
    },
    error: "#VALUE!",
    example: { inside: ["ab", 16_000], past: ["ab", 16_384] },
  },
  {
    functions: ["MUNIT"],
    rule: "dimension at most 100 (10,000 elements)",
    exceeds: over(100, 0),
    example: { inside: [100], past: [101] },
  },
  {
    functions: ["WORKDAY", "WORKDAY.INTL", "WORKDAYINTL"],
    rule: "days at most 100,000",
    exceeds: over(100_000, 1),
    example: { inside: [45_000, 1_000], past: [45_000, 100_001] },
  },
  {
    functions: ["NETWORKDAYS", "NETWORKDAYS.INTL", "NETWORKDAYSINTL"],
    rule: "start and end at most 100,000 days apart",
    exceeds: (num) => abs((num(0) ?? 0) - (num(1) ?? 0)) > 100_000,
    example: { inside: [45_000, 46_000], past: [45_000, 145_001] },
  },
  {
    functions: ["POISSON.DIST", "POISSONDIST"],
    rule: "x and mean at most 1,000,000",
    exceeds: over(1e6, 0, 1),
    example: { inside: [10, 5, true], past: [1_000_001, 5, true] },
  },
  {
    functions: ["NEGBINOM.DIST", "NEGBINOMDIST"],
    rule: "failures and successes at most 1,000,000",
    exceeds: over(1e6, 0, 1),
    example: { inside: [10, 5, 0.5, true], past: [10, 1_000_001, 0.5, true] },
  },
  {
    functions: ["CRITBINOM", "BINOM.INV"],
    rule: "trials at most 10,000",
    exceeds: over(1e4, 0),
    example: { inside: [10_000, 0.5, 0.99], past: [10_001, 0.5, 0.99] },
  },
  {
    functions: ["DB", "DDB"],
    rule: "life and period at most 10,000",
    exceeds: over(1e4, 2, 3),
    example: { inside: [1e6, 1, 10_000, 10_000, 12], past: [1e6, 1, 10_001, 10_000, 12] },
  },
];

const BOUNDS_BY_FUNCTION = new Map<string, ArgumentBound[]>();
for (const bound of ARGUMENT_BOUNDS) {
  for (const name of bound.functions) BOUNDS_BY_FUNCTION.set(name, [...(BOUNDS_BY_FUNCTION.get(name) ?? []), bound]);
}

/** The error a call answers with when its arguments pass a bound of its function, else undefined. */
export function argumentBoundError(name: string, args: readonly FormulaValue[]): Error | undefined {
  const bounds = BOUNDS_BY_FUNCTION.get(name);
  if (!bounds) return undefined;
  const num = (i: number): number | undefined => {
    const v = args[i];
    if (v === undefined || Array.isArray(v)) return undefined;
    const n = toNumber(v);
    return typeof n === "number" && !Number.isNaN(n) ? n : undefined;
  };
  for (const b of bounds) if (b.exceeds(num, args)) return b.error === "#VALUE!" ? Errors.value : Errors.num;
  return undefined;
}

/** Whether a function has argument bounds (so its calls are checked). */
export function hasArgumentBounds(name: string): boolean {
  return BOUNDS_BY_FUNCTION.has(name);
}
