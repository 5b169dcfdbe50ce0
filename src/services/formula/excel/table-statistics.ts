/** The catalogue's Excel entries, part 2: statistics, legacy names and engineering/math corrections. (docs/api-guide.md › Formulas, "Spreadsheet semantics"; split from the catalogue in excel.ts.) */
import * as formulajs from "@formulajs/formulajs";
import { Errors, type FormulaValue, toText } from "../values";
import {
  TEMPERATURE,
  chiTest,
  eliminate,
  fTest,
  gamma,
  quartile,
  squareMatrix,
  tbillDays,
  weekend,
  withBond,
  yearFrac,
} from "./criteria";
import { accrint, couponDays, coupons, duration } from "./financial";
import { formatText } from "./format";
import { type ExcelFunction, type V, argNumber, flat, isErr, lib, optNumber, serialToDate } from "./shared";
import { erf, kth, rank, sumProduct, tDist, tTest } from "./statistics";

export const STATISTICS_FUNCTIONS: Record<string, ExcelFunction> = {
  // Statistics.
  "RANK.EQ": { min: 2, max: 3, impl: rank },
  RANK: { min: 2, max: 3, impl: rank },
  PERCENTILE: { min: 2, max: 2, impl: lib.PERCENTILE!.INC! },
  INTERCEPT: { min: 2, max: 2, impl: (ys: V, xs: V) => lib.INTERCEPT!(flat(ys), flat(xs)) },
  "FORECAST.LINEAR": { min: 3, max: 3, impl: lib.FORECAST as (...a: unknown[]) => unknown },
  LARGE: { min: 2, max: 2, impl: kth(true) },
  SMALL: { min: 2, max: 2, impl: kth(false) },
  SUMPRODUCT: { min: 1, max: 255, impl: sumProduct },
  ERF: {
    min: 1,
    max: 2,
    impl: (a: V, b: V) => {
      const x = argNumber(a);
      if (isErr(x)) return x;
      if (b === undefined) return erf(x);
      const y = argNumber(b);
      return isErr(y) ? y : erf(y) - erf(x);
    },
  },
  NORMSDIST: {
    min: 1,
    max: 1,
    impl: (z: V) => {
      const x = argNumber(z);
      return isErr(x)
        ? x
        : (formulajs as unknown as { NORM: { S: { DIST: (z: number, c: boolean) => number } } }).NORM.S.DIST(x, true);
    },
  },
  // Legacy names with Excel's legacy meaning (the library aliases them to the newer functions' signatures).
  // (A trailing argument the library's alias declared, such as `cumulative`, stays accepted: formulas saved with
  // it keep working; it defaults to the legacy meaning.)
  FDIST: { min: 3, max: 4, impl: (x: V, a: V, b: V) => lib.F!.DIST!.RT!(x, a, b) },
  CHIDIST: { min: 2, max: 3, impl: (x: V, d: V) => lib.CHISQ!.DIST!.RT!(x, d) },
  LOGNORMDIST: { min: 3, max: 4, impl: (x: V, m: V, sd: V, c: V) => lib.LOGNORM!.DIST!(x, m, sd, c ?? true) },
  NEGBINOMDIST: { min: 3, max: 4, impl: (f: V, s: V, p: V, c: V) => lib.NEGBINOM!.DIST!(f, s, p, c ?? false) },
  HYPGEOMDIST: { min: 4, max: 5, impl: (s: V, n: V, m: V, N: V, c: V) => lib.HYPGEOM!.DIST!(s, n, m, N, c ?? false) },
  BETADIST: {
    min: 3,
    max: 5,
    impl: (x: V, a: V, b: V, lo: V, hi: V) => lib.BETA!.DIST!(x, a, b, true, lo ?? 0, hi ?? 1),
  },
  BETAINV: { min: 3, max: 5, impl: (p: V, a: V, b: V, lo: V, hi: V) => lib.BETA!.INV!(p, a, b, lo ?? 0, hi ?? 1) },
  CONFIDENCE: { min: 3, max: 3, impl: (a: V, sd: V, n: V) => lib.CONFIDENCE!.NORM!(a, sd, n) },
  PERCENTRANK: { min: 2, max: 3, impl: (a: V, x: V, sig: V) => lib.PERCENTRANK!.INC!(a, x, sig ?? 3) },
  ACCRINT: { min: 6, max: 8, impl: accrint },
  TREND: {
    min: 1,
    max: 3,
    impl: (ys: V, xs: V, nx: V) => {
      const y = flat(ys);
      const x = xs === undefined || xs === null ? y.map((_, i) => i + 1) : flat(xs);
      return lib.TREND!(y, x, nx === undefined || nx === null ? x : flat(nx));
    },
  },
  "T.TEST": { min: 4, max: 4, impl: tTest },
  "T.DIST": { min: 3, max: 3, impl: tDist },
  TTEST: { min: 4, max: 4, impl: tTest },
  "Z.TEST": { min: 2, max: 3, impl: (a: V, x: V, s: V) => lib.Z!.TEST!(a, x, s === null ? undefined : s) },
  ZTEST: { min: 2, max: 3, impl: (a: V, x: V, s: V) => lib.Z!.TEST!(a, x, s === null ? undefined : s) },
  GAMMA: {
    min: 1,
    max: 1,
    impl: (z: V) => {
      const x = argNumber(z);
      if (isErr(x)) return x;
      return x <= 0 && Number.isInteger(x) ? Errors.num : gamma(x);
    },
  },
  SERIESSUM: { min: 4, max: 4, impl: (x: V, n: V, m: V, coeffs: V) => lib.SERIESSUM!(x, n, m, flat(coeffs)) },
  TBILLPRICE: {
    min: 3,
    max: 3,
    impl: (s: V, m: V, d: V) => {
      const days = tbillDays(s, m);
      const r = argNumber(d);
      if (isErr(days)) return days;
      if (isErr(r)) return r;
      return r <= 0 ? Errors.num : 100 * (1 - (r * days) / 360);
    },
  },
  TBILLYIELD: {
    min: 3,
    max: 3,
    impl: (s: V, m: V, p: V) => {
      const days = tbillDays(s, m);
      const pr = argNumber(p);
      if (isErr(days)) return days;
      if (isErr(pr)) return pr;
      return pr <= 0 ? Errors.num : ((100 - pr) / pr) * (360 / days);
    },
  },
  TBILLEQ: {
    min: 3,
    max: 3,
    impl: (s: V, m: V, d: V) => {
      const days = tbillDays(s, m);
      const r = argNumber(d);
      if (isErr(days)) return days;
      if (isErr(r)) return r;
      if (r <= 0) return Errors.num;
      if (days <= 182) return (365 * r) / (360 - r * days);
      const price = 100 * (1 - (r * days) / 360);
      const a = days / 365 - 0.5;
      const b = days / 365;
      const c = (price - 100) / price;
      return (-b + Math.sqrt(b * b - 4 * a * c)) / (2 * a);
    },
  },
  QUARTILE: { min: 2, max: 2, impl: (a: V, q: V) => quartile(a, q) },
  "QUARTILE.INC": { min: 2, max: 2, impl: (a: V, q: V) => quartile(a, q) },
  "F.TEST": { min: 2, max: 2, impl: fTest },
  FTEST: { min: 2, max: 2, impl: fTest },
  "CHISQ.TEST": { min: 2, max: 2, impl: chiTest },
  CHITEST: { min: 2, max: 2, impl: chiTest },
  TIME: {
    min: 3,
    max: 3,
    impl: (h: V, m: V, sec: V) => {
      const parts = [h, m, sec].map(argNumber);
      for (const x of parts) if (isErr(x)) return x;
      const [hh, mm, ss] = (parts as number[]).map(Math.trunc);
      if ([hh, mm, ss].some((x) => x! > 32_767)) return Errors.num;
      const total = hh! * 3600 + mm! * 60 + ss!;
      return total < 0 ? Errors.num : (total % 86_400) / 86_400;
    },
  },
  MDURATION: {
    min: 5,
    max: 6,
    impl: (s: V, m: V, c: V, y: V, f: V, b: V) => {
      const d = duration(s, m, c, y, f, b);
      const yy = argNumber(y);
      const ff = argNumber(f);
      return isErr(d) || isErr(yy) || isErr(ff) ? (isErr(d) ? d : Errors.value) : (d as number) / (1 + yy / ff);
    },
  },
  COUPNUM: { min: 3, max: 4, impl: (s: V, m: V, f: V, b: V) => withBond(s, m, f, b, (bond) => coupons(bond).n) },
  COUPNCD: {
    min: 3,
    max: 4,
    impl: (s: V, m: V, f: V, b: V) => withBond(s, m, f, b, (bond) => serialToDate(coupons(bond).ncd)),
  },
  COUPPCD: {
    min: 3,
    max: 4,
    impl: (s: V, m: V, f: V, b: V) => withBond(s, m, f, b, (bond) => serialToDate(coupons(bond).pcd)),
  },
  COUPDAYBS: { min: 3, max: 4, impl: (s: V, m: V, f: V, b: V) => withBond(s, m, f, b, (bond) => couponDays(bond).A) },
  COUPDAYSNC: {
    min: 3,
    max: 4,
    impl: (s: V, m: V, f: V, b: V) => withBond(s, m, f, b, (bond) => couponDays(bond).DSC),
  },
  ACCRINTM: {
    min: 4,
    max: 5,
    impl: (issue: V, settle: V, rate: V, par: V, basis: V) => {
      const frac = yearFrac(issue, settle, basis);
      const r = argNumber(rate);
      const p = argNumber(par);
      if (isErr(frac)) return frac;
      if (isErr(r)) return r;
      if (isErr(p)) return p;
      return r <= 0 || p <= 0 ? Errors.num : p * r * frac;
    },
  },
  INTRATE: {
    min: 4,
    max: 5,
    impl: (s: V, m: V, inv: V, red: V, basis: V) => {
      const frac = yearFrac(s, m, basis);
      const i = argNumber(inv);
      const r = argNumber(red);
      if (isErr(frac)) return frac;
      if (isErr(i)) return i;
      if (isErr(r)) return r;
      return i <= 0 || r <= 0 ? Errors.num : (r - i) / i / frac;
    },
  },
  RECEIVED: {
    min: 4,
    max: 5,
    impl: (s: V, m: V, inv: V, disc: V, basis: V) => {
      const frac = yearFrac(s, m, basis);
      const i = argNumber(inv);
      const d = argNumber(disc);
      if (isErr(frac)) return frac;
      if (isErr(i)) return i;
      if (isErr(d)) return d;
      const q = 1 - d * frac;
      return i <= 0 || d <= 0 || q <= 0 ? Errors.num : i / q;
    },
  },
  "NETWORKDAYS.INTL": { min: 2, max: 4, impl: (s: V, e: V, w: V, h: V) => lib.NETWORKDAYS!.INTL!(s, e, weekend(w), h) },
  NETWORKDAYSINTL: { min: 2, max: 4, impl: (s: V, e: V, w: V, h: V) => lib.NETWORKDAYS!.INTL!(s, e, weekend(w), h) },
  "WORKDAY.INTL": { min: 2, max: 4, impl: (s: V, d: V, w: V, h: V) => lib.WORKDAY!.INTL!(s, d, weekend(w), h) },
  WORKDAYINTL: { min: 2, max: 4, impl: (s: V, d: V, w: V, h: V) => lib.WORKDAY!.INTL!(s, d, weekend(w), h) },
  "ERF.PRECISE": {
    min: 1,
    max: 1,
    impl: (x: V) => {
      const n = argNumber(x);
      return isErr(n) ? n : erf(n);
    },
  },
  "ERFC.PRECISE": {
    min: 1,
    max: 1,
    impl: (x: V) => {
      const n = argNumber(x);
      return isErr(n) ? n : 1 - erf(n);
    },
  },
  MDETERM: {
    min: 1,
    max: 1,
    impl: (m: V) => {
      const a = squareMatrix(m);
      return isErr(a) ? a : eliminate(a, false).det;
    },
  },
  MINVERSE: {
    min: 1,
    max: 1,
    impl: (m: V) => {
      const a = squareMatrix(m);
      if (isErr(a)) return a;
      const { det, inverse } = eliminate(a, true);
      return det === 0 || !inverse ? Errors.num : inverse;
    },
  },
  CONVERT: {
    min: 3,
    max: 3,
    impl: (x: V, from: V, to: V) => {
      const t = typeof from === "string" && typeof to === "string" ? [TEMPERATURE[from], TEMPERATURE[to]] : [];
      if (t[0] && t[1]) {
        const n = argNumber(x);
        return isErr(n) ? n : t[1][1](t[0][0](n));
      }
      return lib.CONVERT!(x, from, to);
    },
  },
  FIXED: {
    min: 1,
    max: 3,
    impl: (x: V, d: V, noCommas: V) => {
      const n = argNumber(x);
      const dd = optNumber(d, 2);
      if (isErr(n)) return n;
      if (isErr(dd)) return dd;
      const places = Math.max(-15, Math.min(127, Math.trunc(dd)));
      const f = 10 ** places;
      const shown = Number(Math.abs(n).toPrecision(15));
      const r = Math.round(shown * f) / f;
      const plain = noCommas === true || (typeof noCommas === "number" && noCommas !== 0);
      const body = formatText(r, `${plain ? "0" : "#,##0"}${places > 0 ? "." + "0".repeat(places) : ""}`) as string;
      return n < 0 && r !== 0 ? `-${body}` : body;
    },
  },
  TRIM: {
    min: 1,
    max: 1,
    impl: (t: V) => {
      const s = toText((t ?? null) as FormulaValue);
      return isErr(s) ? s : s.replace(/ +/g, " ").replace(/^ | $/g, "");
    },
  },
};
