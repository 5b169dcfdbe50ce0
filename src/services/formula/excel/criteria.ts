/** Criteria (COUNTIF, SUMIF, …), GAMMA, DOLLAR, QUARTILE, F.TEST/CHITEST, matrices and other helpers of the catalogue. (docs/api-guide.md › Formulas, "Spreadsheet semantics"; split from the catalogue in excel.ts.) */
import { parseNumberText } from "../parseText";
import { Errors } from "../values";
import { type Bond, readBond } from "./financial";
import { formatText } from "./format";
import { order, rowsOf, wildcardWhole } from "./lookup";
import { type V, argNumber, flat, isErr, lib, mean, optNumber, sum, variance } from "./shared";

// ---- criteria (COUNTIF, SUMIF, …) -----------------------------------------------------------------------------

/**
 * A criteria test as Excel reads one: a number or boolean matches equal values; text may start with an operator
 * (`>2`, `<>a`, `=`), compares numbers numerically when its operand reads as a number, and text
 * case-insensitively with wildcards (`a*`, `?b`); `""` or `"="` matches blanks, `"<>"` anything not blank.
 */
export function criteriaTest(criteria: V): (v: V) => boolean {
  if (typeof criteria === "number" || typeof criteria === "boolean") {
    return (v) =>
      v === criteria || (typeof criteria === "number" && typeof v === "string" && parseNumberText(v) === criteria);
  }
  if (criteria === null || criteria === undefined) return (v) => v === 0;
  const c = String(criteria);
  const m = /^(<=|>=|<>|<|>|=)?([\s\S]*)$/.exec(c)!;
  const op = m[1] ?? "=";
  const operand = m[2]!;
  const num = parseNumberText(operand);
  if (operand === "") {
    if (op === "=") return (v) => v === null || v === undefined || v === "";
    if (op === "<>") return (v) => !(v === null || v === undefined || v === "");
  }
  if (num !== undefined) {
    return (v) => {
      // Text that reads as the number matches it too (COUNTIF({"1", 1}, "1") is 2).
      if (typeof v === "string" && (op === "=" || op === "<>")) return (parseNumberText(v) === num) === (op === "=");
      if (typeof v !== "number") return op === "<>" ? true : false;
      switch (op) {
        case "=":
          return v === num;
        case "<>":
          return v !== num;
        case "<":
          return v < num;
        case "<=":
          return v <= num;
        case ">":
          return v > num;
        default:
          return v >= num;
      }
    };
  }
  const upper = operand.toUpperCase();
  if (upper === "TRUE" || upper === "FALSE") {
    const b = upper === "TRUE";
    return (v) => (op === "<>" ? v !== b : op === "=" ? v === b : false);
  }
  if (op === "=" || op === "<>") {
    const hasWild = /[*?~]/.test(operand);
    const lower = operand.toLowerCase();
    const eq = (v: V) => typeof v === "string" && (hasWild ? wildcardWhole(operand, v) : v.toLowerCase() === lower);
    return op === "=" ? eq : (v) => !eq(v);
  }
  return (v) => {
    if (typeof v !== "string") return false;
    const c2 = order(v, operand);
    return op === "<" ? c2 < 0 : op === "<=" ? c2 <= 0 : op === ">" ? c2 > 0 : c2 >= 0;
  };
}

/** Positions of `range` that pass every (range, criteria) pair; all ranges the same size (else #VALUE!). */
export function matchingPositions(pairs: Array<[V, V]>, size: number): number[] | Error {
  let keep = Array.from({ length: size }, (_, i) => i);
  for (const [range, criteria] of pairs) {
    if (isErr(criteria)) return criteria;
    const items = flat(range);
    if (items.length !== size) return Errors.value;
    const test = criteriaTest(Array.isArray(criteria) ? flat(criteria)[0] : criteria);
    keep = keep.filter((i) => test(items[i]));
  }
  return keep;
}

export function ifsAggregate(kind: "sum" | "average" | "max" | "min", target: V, pairs: Array<[V, V]>): V {
  const values = flat(target);
  const pos = matchingPositions(pairs, values.length);
  if (isErr(pos)) return pos;
  const xs: number[] = [];
  for (const i of pos) {
    const x = values[i];
    if (isErr(x)) return x;
    if (typeof x === "number") xs.push(x);
  }
  if (kind === "sum") return sum(xs);
  if (kind === "average") return xs.length ? mean(xs) : Errors.div0;
  return xs.length ? (kind === "max" ? Math.max(...xs) : Math.min(...xs)) : 0;
}

export const pairsFrom = (args: V[], start: number): Array<[V, V]> => {
  const out: Array<[V, V]> = [];
  for (let i = start; i + 1 < args.length; i += 2) out.push([args[i], args[i + 1]]);
  return out;
};

// ---- numbers shown as text ------------------------------------------------------------------------------------

/** Excel's GAMMA (Lanczos, g = 7): exact to about 15 digits, where the library's is off in the 9th. */
export function gamma(z: number): number {
  const g = 7;
  const c = [
    0.99999999999980993, 676.5203681218851, -1259.1392167224028, 771.32342877765313, -176.61502916214059,
    12.507343278686905, -0.13857109526572012, 9.9843695780195716e-6, 1.5056327351493116e-7,
  ];
  if (z < 0.5) return Math.PI / (Math.sin(Math.PI * z) * gamma(1 - z));
  const x0 = z - 1;
  let a = c[0]!;
  const t = x0 + g + 0.5;
  for (let i = 1; i < g + 2; i++) a += c[i]! / (x0 + i);
  return Math.sqrt(2 * Math.PI) * t ** (x0 + 0.5) * Math.exp(-t) * a;
}

export function dollar(n: V, decimals: V): V {
  const x = argNumber(n);
  const d = optNumber(decimals, 2);
  if (isErr(x)) return x;
  if (isErr(d)) return d;
  const places = Math.trunc(d);
  const f = 10 ** places;
  const r = Math.round(Math.abs(x) * f + 1e-9) / f;
  const body = formatText(r, places > 0 ? `#,##0.${"0".repeat(places)}` : "#,##0") as string;
  return x < 0 && r !== 0 ? `($${body})` : `$${body}`;
}

export function quartile(a: V, q: V): V {
  const k = argNumber(q);
  if (isErr(k)) return k;
  const quart = Math.trunc(k);
  if (quart < 0 || quart > 4) return Errors.num;
  const xs = flat(a).filter((x): x is number => typeof x === "number");
  if (!xs.length) return Errors.num;
  return lib.PERCENTILE!.INC!(xs, quart / 4);
}

/** F.TEST: the two-tailed probability that the variances of the two samples are not different. */
export function fTest(a: V, b: V): V {
  const xs = flat(a).filter((x): x is number => typeof x === "number");
  const ys = flat(b).filter((x): x is number => typeof x === "number");
  const vx = variance(xs, true);
  const vy = variance(ys, true);
  if (isErr(vx) || isErr(vy) || vx === 0 || vy === 0) return Errors.div0;
  const right = lib.F!.DIST!.RT!(vx / vy, xs.length - 1, ys.length - 1);
  return typeof right === "number" ? 2 * Math.min(right, 1 - right) : right;
}

export function chiTest(actual: V, expected: V): V {
  const o = rowsOf(actual);
  const e = rowsOf(expected);
  const fo = flat(actual);
  const fe = flat(expected);
  if (fo.length !== fe.length || fo.length < 2) return Errors.na;
  let x = 0;
  for (let i = 0; i < fo.length; i++) {
    const a = fo[i];
    const b = fe[i];
    if (typeof a !== "number" || typeof b !== "number") continue;
    if (b === 0) return Errors.div0;
    x += (a - b) ** 2 / b;
  }
  const r = o.length;
  const c = o[0]!.length;
  const df = r > 1 && c > 1 ? (r - 1) * (c - 1) : fo.length - 1;
  void e;
  return lib.CHISQ!.DIST!.RT!(x, df);
}

export function yearFrac(a: V, b: V, basis: V): number | Error {
  const x = argNumber(a);
  const y = argNumber(b);
  const bs = optNumber(basis, 0);
  if (isErr(x)) return x;
  if (isErr(y)) return y;
  if (isErr(bs)) return bs;
  if (Math.trunc(y) <= Math.trunc(x) || bs < 0 || bs > 4) return Errors.num;
  const f = lib.YEARFRAC!(Math.trunc(x), Math.trunc(y), Math.trunc(bs));
  return typeof f === "number" ? f : Errors.num;
}

export function withBond(s: V, m: V, f: V, b: V, then: (bond: Bond) => V): V {
  const bond = readBond(s, m, f, b);
  return isErr(bond) ? bond : then(bond);
}

/** Weekend masks ("0000011": Monday first, 1 = weekend) as the library's weekend numbers. */
export const WEEKEND_MASKS: Record<string, number> = {
  "0000011": 1,
  "1000001": 2,
  "1100000": 3,
  "0110000": 4,
  "0011000": 5,
  "0001100": 6,
  "0000110": 7,
  "0000001": 11,
  "1000000": 12,
  "0100000": 13,
  "0010000": 14,
  "0001000": 15,
  "0000100": 16,
  "0000010": 17,
};
export const weekend = (w: V) => (typeof w === "string" && w in WEEKEND_MASKS ? WEEKEND_MASKS[w] : w);

/** A square matrix of numbers from rows, or an error. */
export function squareMatrix(v: V): number[][] | Error {
  const rows = rowsOf(v);
  const n = rows.length;
  if (rows.some((r) => r.length !== n)) return Errors.value;
  if (rows.some((r) => r.some((x) => typeof x !== "number"))) return Errors.value;
  return rows.map((r) => [...(r as number[])]);
}

/** Gauss-Jordan elimination with partial pivoting: the determinant, and the inverse when asked. */
export function eliminate(m: number[][], invert: boolean): { det: number; inverse?: number[][] } {
  const n = m.length;
  const a = m.map((r) => [...r]);
  const inv = invert ? a.map((_, i) => a.map((__, j) => (i === j ? 1 : 0))) : [];
  let det = 1;
  for (let c = 0; c < n; c++) {
    let p = c;
    for (let r = c + 1; r < n; r++) if (Math.abs(a[r]![c]!) > Math.abs(a[p]![c]!)) p = r;
    if (a[p]![c] === 0) return { det: 0 };
    if (p !== c) {
      [a[p], a[c]] = [a[c]!, a[p]!];
      if (invert) [inv[p], inv[c]] = [inv[c]!, inv[p]!];
      det = -det;
    }
    const pivot = a[c]![c]!;
    det *= pivot;
    for (let j = 0; j < n; j++) {
      a[c]![j]! /= pivot;
      if (invert) inv[c]![j]! /= pivot;
    }
    for (let r = 0; r < n; r++) {
      if (r === c) continue;
      const f = a[r]![c]!;
      if (f === 0) continue;
      for (let j = 0; j < n; j++) {
        a[r]![j]! -= f * a[c]![j]!;
        if (invert) inv[r]![j]! -= f * inv[c]![j]!;
      }
    }
  }
  return invert ? { det, inverse: inv } : { det };
}

export const TEMPERATURE: Record<string, [(x: number) => number, (k: number) => number]> = {
  C: [(x) => x + 273.15, (k) => k - 273.15],
  cel: [(x) => x + 273.15, (k) => k - 273.15],
  F: [(x) => ((x - 32) * 5) / 9 + 273.15, (k) => ((k - 273.15) * 9) / 5 + 32],
  fah: [(x) => ((x - 32) * 5) / 9 + 273.15, (k) => ((k - 273.15) * 9) / 5 + 32],
  K: [(x) => x, (k) => k],
  kel: [(x) => x, (k) => k],
  Rank: [(x) => (x * 5) / 9, (k) => (k * 9) / 5],
  Reau: [(x) => x * 1.25 + 273.15, (k) => (k - 273.15) * 0.8],
};

export function tbillDays(settlement: V, maturity: V): number | Error {
  const s = argNumber(settlement);
  const m = argNumber(maturity);
  if (isErr(s)) return s;
  if (isErr(m)) return m;
  const days = Math.trunc(m) - Math.trunc(s);
  return days <= 0 || days > 365 ? Errors.num : days;
}
