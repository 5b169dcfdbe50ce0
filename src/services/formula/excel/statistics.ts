/** Statistics and dynamic arrays with Excel's semantics: RANK, LARGE/SMALL, SUMPRODUCT, T.TEST, FILTER, SORTBY, SEQUENCE. (docs/api-guide.md › Formulas, "Spreadsheet semantics"; split from the catalogue in excel.ts.) */
import * as formulajs from "@formulajs/formulajs";
import { Errors } from "../values";
import { order, rowsOf } from "./lookup";
import { type V, argNumber, calc, flat, isErr, mean, numbersOf, optNumber, variance } from "./shared";

// ---- statistics and lists ---------------------------------------------------------------------------------

export function rank(num: V, ref: V, ord: V): V {
  const n = argNumber(num);
  if (isErr(n)) return n;
  const xs = flat(ref).filter((x): x is number => typeof x === "number");
  if (!xs.includes(n)) return Errors.na;
  const asc = optNumber(ord, 0);
  if (isErr(asc)) return asc;
  return 1 + xs.filter((x) => (asc !== 0 ? x < n : x > n)).length;
}

export function kth(largest: boolean) {
  return (arr: V, k: V): V => {
    const xs = numbersOf([Array.isArray(arr) ? arr : [arr]]);
    if (isErr(xs)) return xs;
    const kk = argNumber(k);
    if (isErr(kk)) return kk;
    const i = Math.ceil(kk);
    if (i < 1 || i > xs.length) return Errors.num;
    xs.sort((a, b) => (largest ? b - a : a - b));
    return xs[i - 1];
  };
}

export function sumProduct(...args: V[]): V {
  const lists = args.map((a) => flat(a));
  const n = lists[0]!.length;
  if (lists.some((l) => l.length !== n)) return Errors.value;
  let total = 0;
  for (let i = 0; i < n; i++) {
    let p = 1;
    for (const l of lists) {
      const x = l[i];
      if (isErr(x)) return x;
      p *= typeof x === "number" ? x : 0;
    }
    total += p;
  }
  return total;
}

export function tTest(a: V, b: V, tails: V, type: V): V {
  const xs = flat(a).filter((x): x is number => typeof x === "number");
  const ys = flat(b).filter((x): x is number => typeof x === "number");
  const tl = argNumber(tails);
  const ty = argNumber(type);
  if (isErr(tl)) return tl;
  if (isErr(ty)) return ty;
  const t1 = Math.trunc(tl);
  const t2 = Math.trunc(ty);
  if ((t1 !== 1 && t1 !== 2) || t2 < 1 || t2 > 3) return Errors.num;
  let t: number;
  let df: number;
  if (t2 === 1) {
    const fa = flat(a);
    const fb = flat(b);
    if (fa.length !== fb.length) return Errors.na;
    const d: number[] = [];
    fa.forEach((x, i) => {
      const y = fb[i];
      if (typeof x === "number" && typeof y === "number") d.push(x - y);
    });
    if (d.length < 2) return Errors.div0;
    const v = variance(d, true) as number;
    if (v === 0) return Errors.div0;
    t = mean(d) / Math.sqrt(v / d.length);
    df = d.length - 1;
  } else {
    if (xs.length < 2 || ys.length < 2) return Errors.div0;
    const vx = variance(xs, true) as number;
    const vy = variance(ys, true) as number;
    const nx = xs.length;
    const ny = ys.length;
    if (t2 === 2) {
      df = nx + ny - 2;
      const sp = ((nx - 1) * vx + (ny - 1) * vy) / df;
      t = (mean(xs) - mean(ys)) / Math.sqrt(sp * (1 / nx + 1 / ny));
    } else {
      const qx = vx / nx;
      const qy = vy / ny;
      t = (mean(xs) - mean(ys)) / Math.sqrt(qx + qy);
      df = (qx + qy) ** 2 / (qx ** 2 / (nx - 1) + qy ** 2 / (ny - 1));
    }
    if (!Number.isFinite(t)) return Errors.div0;
  }
  const oneTail = tRight(Math.abs(t), df);
  return t1 === 1 ? oneTail : 2 * oneTail;
}

/** Student's t right tail, for x ≥ 0 and any df > 0 (fractional in Welch's test). */
export function tRight(x: number, df: number): number {
  const lib = formulajs as unknown as { T: { DIST: { RT: (x: number, df: number) => number } } };
  return lib.T.DIST.RT(x, df);
}

/** T.DIST as Excel defines it: the left-tailed distribution (cumulative) or the density. */
export function tDist(x: V, deg: V, cumulative: V): V {
  const xv = argNumber(x);
  const d = argNumber(deg);
  if (isErr(xv)) return xv;
  if (isErr(d)) return d;
  const df = Math.trunc(d);
  if (df < 1) return Errors.num;
  const c = typeof cumulative === "number" ? cumulative !== 0 : Boolean(cumulative);
  if (c) return xv >= 0 ? 1 - tRight(xv, df) : tRight(-xv, df);
  const gammaln = (formulajs as unknown as { GAMMALN: (z: number) => number }).GAMMALN;
  return (
    (Math.exp(gammaln((df + 1) / 2) - gammaln(df / 2)) / Math.sqrt(df * Math.PI)) *
    (1 + (xv * xv) / df) ** (-(df + 1) / 2)
  );
}

export function erf(x: number): number {
  return (formulajs as unknown as { ERF: (x: number) => number }).ERF(x);
}

// ---- dynamic arrays -------------------------------------------------------------------------------------------

export function filterFn(array: V, include: V, ifEmpty: V): V {
  const rows = rowsOf(array);
  const keep = flat(include);
  for (const k of keep) if (isErr(k)) return k;
  const truthy = (k: V) => (typeof k === "number" ? k !== 0 : k === true);
  let out: V;
  if (rows.length > 1 && keep.length === rows.length) out = rows.filter((_, i) => truthy(keep[i]));
  else if (rows.length === 1 && keep.length === rows[0]!.length) out = rows[0]!.filter((_, i) => truthy(keep[i]));
  else return Errors.value;
  if ((out as V[]).length === 0) return ifEmpty === undefined ? calc : ifEmpty;
  return out;
}

export function sortBy(array: V, ...keys: V[]): V {
  const rows = rowsOf(array);
  const items: V[] = rows.length === 1 ? rows[0]! : rows;
  const n = items.length;
  const sorts: Array<{ by: V[]; dir: number }> = [];
  for (let i = 0; i < keys.length; i += 2) {
    const by = flat(keys[i]);
    if (by.length !== n) return Errors.value;
    const d = optNumber(keys[i + 1], 1);
    if (isErr(d)) return d;
    if (d !== 1 && d !== -1) return Errors.value;
    sorts.push({ by, dir: d });
  }
  const idx = items.map((_, i) => i);
  idx.sort((a, b) => {
    for (const s of sorts) {
      const c = order(s.by[a], s.by[b]);
      if (c !== 0) return c * s.dir;
    }
    return a - b;
  });
  return idx.map((i) => items[i]);
}

export function sequence(rows: V, cols: V, start: V, step: V): V {
  const r = argNumber(rows);
  const c = optNumber(cols, 1);
  const s = optNumber(start, 1);
  const st = optNumber(step, 1);
  for (const x of [r, c, s, st]) if (isErr(x)) return x;
  const nr = Math.trunc(r as number);
  const nc = Math.trunc(c as number);
  if (nr < 1 || nc < 1) return calc;
  const out: number[][] = [];
  for (let i = 0; i < nr; i++)
    out.push(Array.from({ length: nc }, (_, j) => (s as number) + (i * nc + j) * (st as number)));
  return out;
}
