/** Shared pieces of the Excel-semantics functions: the entry type, argument coercion, number lists. (docs/api-guide.md › Formulas, "Spreadsheet semantics"; split from the catalogue in excel.ts.) */
import * as formulajs from "@formulajs/formulajs";
import { parseNumberText } from "../parseText";
import { Errors, formulaError } from "../values";

export interface ExcelFunction {
  min: number;
  max: number;
  impl: (...args: unknown[]) => unknown;
  /** Column reads arrive as one-item arrays (reference semantics). */
  references?: boolean;
  /** Errors arrive as arguments instead of failing the call first. */
  errorAware?: boolean;
  /** Arguments come in pairs after `min` (LET's name/value pairs). */
  pairs?: boolean;
}

export const MANY = Number.POSITIVE_INFINITY;
export type V = unknown;
export const isErr = (v: V): v is Error => v instanceof Error;
export const calc = formulaError("#CALC!");

// ---- coercion -------------------------------------------------------------------------------------------------

export const MS_PER_DAY = 86_400_000;
export const EPOCH = 25_569;
export const serialToDate = (serial: number) => new Date(Math.round((serial - EPOCH) * MS_PER_DAY));
export const dateSerial = (y: number, m: number, d: number) => Date.UTC(y, m - 1, d) / MS_PER_DAY + EPOCH;

/** A value typed as an argument, as a number: TRUE is 1, numeric text its number, blank 0, other text #VALUE!. */
export function argNumber(v: V): number | Error {
  if (typeof v === "number") return v;
  if (typeof v === "boolean") return v ? 1 : 0;
  if (v === null || v === undefined) return 0;
  if (typeof v === "string") return parseNumberText(v) ?? Errors.value;
  if (v instanceof Date) return v.getTime() / MS_PER_DAY + EPOCH;
  if (isErr(v)) return v;
  if (Array.isArray(v)) return v.length > 0 ? argNumber(flat(v)[0]) : Errors.value;
  return Errors.value;
}

/** An optional numeric argument: its number, or `fallback` when omitted or blank. */
export function optNumber(v: V, fallback: number): number | Error {
  return v === undefined || v === null ? fallback : argNumber(v);
}

export function flat(v: V): V[] {
  if (!Array.isArray(v)) return [v];
  const out: V[] = [];
  const walk = (x: V) => (Array.isArray(x) ? x.forEach(walk) : out.push(x));
  walk(v);
  return out;
}

/**
 * The numbers of an aggregate's arguments, Excel-style: in an array (a reference or list) only numbers count;
 * an argument typed directly counts as its number (TRUE 1, "3" 3), and text that is no number is #VALUE!.
 */
export function numbersOf(args: V[], opts: { skipBadText?: boolean } = {}): number[] | Error {
  const out: number[] = [];
  for (const a of args) {
    if (a === undefined) continue;
    if (Array.isArray(a)) {
      for (const x of flat(a)) {
        if (isErr(x)) return x;
        if (typeof x === "number") out.push(x);
        else if (x instanceof Date) out.push(x.getTime() / MS_PER_DAY + EPOCH);
      }
      continue;
    }
    if (a === null) continue;
    if (typeof a === "string" && opts.skipBadText && parseNumberText(a) === undefined) continue;
    const n = argNumber(a);
    if (isErr(n)) return n;
    out.push(n);
  }
  return out;
}

export const withNumbers =
  (f: (xs: number[]) => V) =>
  (...args: V[]) => {
    const xs = numbersOf(args);
    return isErr(xs) ? xs : f(xs);
  };

export const sum = (xs: number[]) => xs.reduce((a, b) => a + b, 0);
export const mean = (xs: number[]) => sum(xs) / xs.length;
export function variance(xs: number[], sample: boolean): number | Error {
  const n = xs.length;
  if (n < (sample ? 2 : 1)) return Errors.div0;
  const m = mean(xs);
  return sum(xs.map((x) => (x - m) ** 2)) / (sample ? n - 1 : n);
}
export const std = (sample: boolean) =>
  withNumbers((xs) => {
    const v = variance(xs, sample);
    return isErr(v) ? v : Math.sqrt(v);
  });
export const vari = (sample: boolean) => withNumbers((xs) => variance(xs, sample));

export function modeSingle(xs: number[]): V {
  const counts = new Map<number, number>();
  let best: number | undefined;
  let bestCount = 1;
  for (const x of xs) {
    const c = (counts.get(x) ?? 0) + 1;
    counts.set(x, c);
    if (c > bestCount) {
      bestCount = c;
      best = x;
    }
  }
  // Ties go to the value that occurs first (Excel): recount in order.
  if (best === undefined) return Errors.na;
  for (const x of xs) if (counts.get(x) === bestCount) return x;
  return best;
}

export type LibFn = ((...a: unknown[]) => unknown) & { [name: string]: LibFn | undefined };
export const lib = formulajs as unknown as Record<string, LibFn | undefined>;
