/** The catalogue's Excel entries, part 1: aggregates, criteria, lookups, LET and dynamic arrays. (docs/api-guide.md › Formulas, "Spreadsheet semantics"; split from the catalogue in excel.ts.) */
import * as formulajs from "@formulajs/formulajs";
import { parseNumberText } from "../parseText";
import { Errors } from "../values";
import { ifsAggregate, matchingPositions, pairsFrom } from "./criteria";
import { approximateMatch, pickFrom, rowsOf, vlookup, xmatch } from "./lookup";
import {
  type ExcelFunction,
  MANY,
  type V,
  flat,
  isErr,
  mean,
  modeSingle,
  optNumber,
  std,
  sum,
  vari,
  withNumbers,
} from "./shared";
import { filterFn, sequence, sortBy } from "./statistics";

export const datedif = (start: V, end: V, unit: V): V => {
  if (start instanceof Date && end instanceof Date && start.getTime() > end.getTime()) return Errors.num;
  if (typeof start === "number" && typeof end === "number" && start > end) return Errors.num;
  return (formulajs.DATEDIF as (...a: unknown[]) => unknown)(start, end, unit);
};

export const stats = {
  STDEV: std(true),
  "STDEV.S": std(true),
  STDEVP: std(false),
  "STDEV.P": std(false),
  VAR: vari(true),
  "VAR.S": vari(true),
  VARP: vari(false),
  "VAR.P": vari(false),
  MODE: withNumbers(modeSingle),
  "MODE.SNGL": withNumbers(modeSingle),
};

export const CORE_FUNCTIONS: Record<string, ExcelFunction> = {
  // Aggregates: a reference counts its numbers only, a typed argument counts as its number.
  SUM: { min: 1, max: MANY, references: true, impl: withNumbers(sum) },
  AVERAGE: { min: 1, max: MANY, references: true, impl: withNumbers((xs) => (xs.length ? mean(xs) : Errors.div0)) },
  MAX: { min: 1, max: MANY, references: true, impl: withNumbers((xs) => (xs.length ? Math.max(...xs) : 0)) },
  MIN: { min: 1, max: MANY, references: true, impl: withNumbers((xs) => (xs.length ? Math.min(...xs) : 0)) },
  COUNT: {
    min: 1,
    max: MANY,
    references: true,
    errorAware: true,
    impl: (...args: V[]) => {
      let n = 0;
      for (const a of args) {
        if (Array.isArray(a)) n += flat(a).filter((x) => typeof x === "number" || x instanceof Date).length;
        else if (
          typeof a === "number" ||
          typeof a === "boolean" ||
          a instanceof Date ||
          (typeof a === "string" && parseNumberText(a) !== undefined)
        )
          n++;
      }
      return n;
    },
  },
  COUNTA: {
    min: 1,
    max: MANY,
    references: true,
    errorAware: true,
    impl: (...args: V[]) => {
      let n = 0;
      for (const a of args)
        n += Array.isArray(a)
          ? flat(a).filter((x) => x !== null && x !== undefined).length
          : a === null || a === undefined
            ? 0
            : 1;
      return n;
    },
  },
  ...Object.fromEntries(Object.entries(stats).map(([k, impl]) => [k, { min: 1, max: MANY, references: true, impl }])),
  MEDIAN: {
    min: 1,
    max: MANY,
    references: true,
    impl: withNumbers((xs) => {
      if (!xs.length) return Errors.num;
      const v = [...xs].sort((a, b) => a - b);
      const h = v.length >> 1;
      return v.length % 2 ? v[h] : (v[h - 1]! + v[h]!) / 2;
    }),
  },
  PRODUCT: {
    min: 1,
    max: MANY,
    references: true,
    impl: withNumbers((xs) => (xs.length ? xs.reduce((a, b) => a * b, 1) : 0)),
  },
  SUMSQ: { min: 1, max: MANY, references: true, impl: withNumbers((xs) => sum(xs.map((x) => x * x))) },
  GEOMEAN: {
    min: 1,
    max: MANY,
    references: true,
    impl: withNumbers((xs) => (xs.length && xs.every((x) => x > 0) ? Math.exp(mean(xs.map(Math.log))) : Errors.num)),
  },
  HARMEAN: {
    min: 1,
    max: MANY,
    references: true,
    impl: withNumbers((xs) =>
      xs.length && xs.every((x) => x > 0) ? xs.length / sum(xs.map((x) => 1 / x)) : Errors.num,
    ),
  },
  // Criteria: case-insensitive text, wildcards, operators, as Excel matches them.
  COUNTIF: {
    min: 2,
    max: 2,
    impl: (range: V, c: V) => {
      const items = flat(range);
      const pos = matchingPositions([[range, c]], items.length);
      return isErr(pos) ? pos : pos.length;
    },
  },
  COUNTIFS: {
    min: 2,
    max: 254,
    pairs: true,
    impl: (...args: V[]) => {
      const size = flat(args[0]).length;
      const pos = matchingPositions(pairsFrom(args, 0), size);
      return isErr(pos) ? pos : pos.length;
    },
  },
  SUMIF: {
    min: 2,
    max: 3,
    impl: (range: V, c: V, target: V) =>
      ifsAggregate("sum", target === undefined || target === null ? range : target, [[range, c]]),
  },
  AVERAGEIF: {
    min: 2,
    max: 3,
    impl: (range: V, c: V, target: V) =>
      ifsAggregate("average", target === undefined || target === null ? range : target, [[range, c]]),
  },
  SUMIFS: {
    min: 3,
    max: 255,
    pairs: true,
    impl: (target: V, ...rest: V[]) => ifsAggregate("sum", target, pairsFrom(rest, 0)),
  },
  AVERAGEIFS: {
    min: 3,
    max: 255,
    pairs: true,
    impl: (target: V, ...rest: V[]) => ifsAggregate("average", target, pairsFrom(rest, 0)),
  },
  MAXIFS: {
    min: 3,
    max: 255,
    pairs: true,
    impl: (target: V, ...rest: V[]) => ifsAggregate("max", target, pairsFrom(rest, 0)),
  },
  MINIFS: {
    min: 3,
    max: 255,
    pairs: true,
    impl: (target: V, ...rest: V[]) => ifsAggregate("min", target, pairsFrom(rest, 0)),
  },
  // Optional arguments and Excel's answers for lookups.
  VLOOKUP: { min: 3, max: 4, impl: (v: V, t: V, c: V, a: V) => vlookup(v, t, c, a, false) },
  HLOOKUP: { min: 3, max: 4, impl: (v: V, t: V, c: V, a: V) => vlookup(v, t, c, a, true) },
  MATCH: {
    min: 2,
    max: 3,
    impl: (v: V, list: V, type: V) => {
      const t = optNumber(type, 1);
      if (isErr(t)) return t;
      const items = flat(list);
      const mode = Math.sign(Math.trunc(t));
      const i = mode === 0 ? xmatch(v, items, typeof v === "string" ? 2 : 0, 1) : approximateMatch(v, items, mode);
      return i < 0 ? Errors.na : i + 1;
    },
  },
  INDEX: {
    min: 2,
    max: 3,
    impl: (array: V, row: V, col: V) => {
      const rows = rowsOf(array);
      const r = optNumber(row, 0);
      const c = optNumber(col, 0);
      if (isErr(r)) return r;
      if (isErr(c)) return c;
      let ri = Math.trunc(r);
      let ci = Math.trunc(c);
      if (ri < 0 || ci < 0) return Errors.value;
      if (rows.length === 1 && col === undefined) [ri, ci] = [1, ri];
      else if (rows[0]!.length === 1 && col === undefined) ci = 1;
      if (ri > rows.length || ci > rows[0]!.length) return Errors.ref;
      if (ri === 0 && ci === 0) return rows;
      if (ri === 0) return rows.map((x) => x[ci - 1]);
      if (ci === 0) return rows[ri - 1];
      return rows[ri - 1]![ci - 1] ?? null;
    },
  },
  LOOKUP: {
    min: 2,
    max: 3,
    impl: (v: V, list: V, result: V) => {
      let keys: V[];
      let res: V[];
      if (result === undefined) {
        const rows = rowsOf(list);
        const wide = rows[0]!.length > rows.length;
        keys = wide ? rows[0]! : rows.map((r) => r[0]);
        res = wide ? rows[rows.length - 1]! : rows.map((r) => r[r.length - 1]);
      } else {
        keys = flat(list);
        res = flat(result);
      }
      const i = approximateMatch(v, keys, 1);
      return i < 0 ? Errors.na : (res[i] ?? Errors.na);
    },
  },
  XLOOKUP: {
    min: 3,
    max: 6,
    impl: (v: V, lookup: V, result: V, notFound: V, mode: V, searchMode: V) => {
      const m = optNumber(mode, 0);
      const s = optNumber(searchMode, 1);
      if (isErr(m)) return m;
      if (isErr(s)) return s;
      if (![0, -1, 1, 2].includes(m) || ![1, -1, 2, -2].includes(s)) return Errors.value;
      const rows = rowsOf(lookup);
      const i = xmatch(v, flat(lookup), m, s);
      if (i < 0) return notFound === undefined ? Errors.na : notFound;
      return pickFrom(result, rows, i);
    },
  },
  XMATCH: {
    min: 2,
    max: 4,
    impl: (v: V, lookup: V, mode: V, searchMode: V) => {
      const m = optNumber(mode, 0);
      const s = optNumber(searchMode, 1);
      if (isErr(m)) return m;
      if (isErr(s)) return s;
      if (![0, -1, 1, 2].includes(m) || ![1, -1, 2, -2].includes(s)) return Errors.value;
      const i = xmatch(v, flat(lookup), m, s);
      return i < 0 ? Errors.na : i + 1;
    },
  },
  COLUMN: { min: 0, max: 1, impl: () => 1 },
  // Evaluated by the evaluator (it binds names); never called as a library function.
  LET: { min: 3, max: 253, pairs: true, impl: () => Errors.value },
  ROW: { min: 0, max: 1, impl: () => 1 },
  FILTER: { min: 2, max: 3, impl: filterFn },
  SORTBY: { min: 2, max: 253, impl: sortBy },
  SEQUENCE: { min: 1, max: 4, impl: sequence },
};
