/** Financial functions with Excel's semantics: VDB and the bond functions (PRICE, YIELD, DURATION, coupons). (docs/api-guide.md › Formulas, "Spreadsheet semantics"; split from the catalogue in excel.ts.) */
import { Errors } from "../values";
import { type V, argNumber, dateSerial, isErr, lib, optNumber, serialToDate } from "./shared";

// ---- financial ------------------------------------------------------------------------------------------------

/** VDB: declining balance switching to straight line, over a (fractional) period range. */
export function vdb(cost: V, salvage: V, life: V, start: V, end: V, factor: V, noSwitch: V): V {
  const nums = [cost, salvage, life, start, end].map(argNumber);
  for (const x of nums) if (isErr(x)) return x;
  const [c, s, l, a, b] = nums as number[];
  const f = optNumber(factor, 2);
  if (isErr(f)) return f;
  const ns = noSwitch === true || (typeof noSwitch === "number" && noSwitch !== 0);
  if (c! < 0 || s! < 0 || l! <= 0 || a! < 0 || b! < a! || b! > l! || f < 0) return Errors.num;
  // The depreciation of each whole period (LibreOffice and Excel agree on this scheme), then the fractional ends.
  const periods = Math.ceil(l!);
  const perPeriod: number[] = [];
  let value = c!;
  let switched = false;
  let sl = 0;
  for (let p = 1; p <= periods; p++) {
    let dep: number;
    if (switched) dep = sl;
    else {
      const ddb = Math.min(value * (f / l!), Math.max(0, value - s!));
      const rest = l! - (p - 1);
      const straight = rest > 0 ? (value - s!) / rest : 0;
      if (!ns && straight > ddb) {
        switched = true;
        sl = straight;
        dep = straight;
      } else dep = ddb;
    }
    dep = Math.max(0, Math.min(dep, value - s!));
    perPeriod.push(dep);
    value -= dep;
  }
  let total = 0;
  for (let p = 0; p < periods; p++) {
    const lo = Math.max(a!, p);
    const hi = Math.min(b!, p + 1);
    if (hi > lo) total += perPeriod[p]! * (hi - lo);
  }
  return total;
}

export interface Bond {
  settlement: number;
  maturity: number;
  frequency: number;
  basis: number;
}

export function readBond(settlement: V, maturity: V, frequency: V, basis: V): Bond | Error {
  const st = argNumber(settlement);
  const mt = argNumber(maturity);
  const fr = argNumber(frequency);
  const bs = optNumber(basis, 0);
  for (const x of [st, mt, fr, bs]) if (isErr(x)) return x;
  const b: Bond = {
    settlement: Math.trunc(st as number),
    maturity: Math.trunc(mt as number),
    frequency: fr as number,
    basis: Math.trunc(bs as number),
  };
  if (![1, 2, 4].includes(b.frequency) || b.basis < 0 || b.basis > 4 || b.settlement >= b.maturity) return Errors.num;
  return b;
}

export const ymd = (serial: number) => {
  const d = serialToDate(serial);
  return [d.getUTCFullYear(), d.getUTCMonth() + 1, d.getUTCDate()] as const;
};
/** The maturity date moved by `months`, its day kept (end of month when the month is shorter). */
export function addMonthsKeep(serial: number, months: number): number {
  const [y, m, d] = ymd(serial);
  const total = y * 12 + (m - 1) + months;
  const ny = Math.floor(total / 12);
  const nm = (total % 12) + 1;
  const last = new Date(Date.UTC(ny, nm, 0)).getUTCDate();
  const lastOfMaturity = d === new Date(Date.UTC(y, m, 0)).getUTCDate();
  return dateSerial(ny, nm, lastOfMaturity ? last : Math.min(d, last));
}

/** Previous and next coupon dates around settlement, and the number of coupons left. */
export function coupons(b: Bond): { pcd: number; ncd: number; n: number } {
  const step = 12 / b.frequency;
  let n = 0;
  let ncd = b.maturity;
  let pcd = addMonthsKeep(b.maturity, -step);
  while (pcd > b.settlement) {
    n++;
    ncd = pcd;
    pcd = addMonthsKeep(b.maturity, -step * (n + 1));
  }
  return { pcd, ncd, n: n + 1 };
}

export function days360(a: number, b: number, european: boolean): number {
  let [y1, m1, d1] = ymd(a);
  let [y2, m2, d2] = ymd(b);
  if (european) {
    if (d1 === 31) d1 = 30;
    if (d2 === 31) d2 = 30;
  } else {
    const lastFeb = (y: number, m: number, d: number) => m === 2 && d === new Date(Date.UTC(y, 2, 0)).getUTCDate();
    if (lastFeb(y1, m1, d1) && lastFeb(y2, m2, d2)) d2 = 30;
    if (lastFeb(y1, m1, d1)) d1 = 30;
    if (d2 === 31 && d1 >= 30) d2 = 30;
    if (d1 === 31) d1 = 30;
  }
  return (y2 - y1) * 360 + (m2 - m1) * 30 + (d2 - d1);
}

/** Days of the coupon period (E), from its start to settlement (A), and from settlement to the next coupon (DSC). */
export function couponDays(b: Bond) {
  const { pcd, ncd, n } = coupons(b);
  let E: number, A: number, DSC: number;
  switch (b.basis) {
    case 0:
      E = 360 / b.frequency;
      A = days360(pcd, b.settlement, false);
      DSC = E - A;
      break;
    case 4:
      E = 360 / b.frequency;
      A = days360(pcd, b.settlement, true);
      DSC = days360(b.settlement, ncd, true);
      break;
    case 1:
      E = ncd - pcd;
      A = b.settlement - pcd;
      DSC = ncd - b.settlement;
      break;
    case 2:
      E = 360 / b.frequency;
      A = b.settlement - pcd;
      DSC = ncd - b.settlement;
      break;
    default:
      E = 365 / b.frequency;
      A = b.settlement - pcd;
      DSC = ncd - b.settlement;
  }
  return { E, A, DSC, N: n };
}

export function bondPrice(b: Bond, rate: number, yld: number, redemption: number): number {
  const { E, A, DSC, N } = couponDays(b);
  const f = b.frequency;
  const coupon = (100 * rate) / f;
  if (N === 1) {
    const t = DSC / E;
    return (redemption + coupon) / (1 + (t * yld) / f) - (A / E) * coupon;
  }
  let price = redemption / (1 + yld / f) ** (N - 1 + DSC / E);
  for (let k = 1; k <= N; k++) price += coupon / (1 + yld / f) ** (k - 1 + DSC / E);
  return price - coupon * (A / E);
}

export function price(settlement: V, maturity: V, rate: V, yld: V, redemption: V, frequency: V, basis: V): V {
  const b = readBond(settlement, maturity, frequency, basis);
  if (isErr(b)) return b;
  const nums = [rate, yld, redemption].map(argNumber);
  for (const x of nums) if (isErr(x)) return x;
  const [r, y, red] = nums as number[];
  if (r! < 0 || y! < 0 || red! <= 0) return Errors.num;
  return bondPrice(b, r!, y!, red!);
}

export function yieldFn(settlement: V, maturity: V, rate: V, pr: V, redemption: V, frequency: V, basis: V): V {
  const b = readBond(settlement, maturity, frequency, basis);
  if (isErr(b)) return b;
  const nums = [rate, pr, redemption].map(argNumber);
  for (const x of nums) if (isErr(x)) return x;
  const [r, p, red] = nums as number[];
  if (r! < 0 || p! <= 0 || red! <= 0) return Errors.num;
  const { E, A, DSC, N } = couponDays(b);
  const f = b.frequency;
  if (N === 1) {
    const coupon = (100 * r!) / f;
    const dirty = p! + (A / E) * coupon;
    return ((red! + coupon - dirty) / dirty) * ((f * E) / DSC);
  }
  // Newton's method on PRICE (Excel iterates too); a bisection fallback keeps it from diverging.
  let lo = 0;
  let hi = 1;
  while (bondPrice(b, r!, hi, red!) > p! && hi < 1e6) hi *= 2;
  let y = r! || 0.05;
  for (let i = 0; i < 100; i++) {
    const fy = bondPrice(b, r!, y, red!) - p!;
    if (Math.abs(fy) < 1e-10) return y;
    const h = 1e-7;
    const d = (bondPrice(b, r!, y + h, red!) - bondPrice(b, r!, y - h, red!)) / (2 * h);
    let next = y - fy / d;
    if (fy > 0) lo = Math.max(lo, y);
    else hi = Math.min(hi, y);
    if (!Number.isFinite(next) || next <= lo || next >= hi) next = (lo + hi) / 2;
    y = next;
  }
  return y;
}

export function duration(settlement: V, maturity: V, coupon: V, yld: V, frequency: V, basis: V): V {
  const b = readBond(settlement, maturity, frequency, basis);
  if (isErr(b)) return b;
  const c = argNumber(coupon);
  const y = argNumber(yld);
  if (isErr(c)) return c;
  if (isErr(y)) return y;
  if (c < 0 || y < 0) return Errors.num;
  const { E, DSC, N } = couponDays(b);
  const f = b.frequency;
  const dsc = DSC / E;
  let weighted = 0;
  let total = 0;
  for (let k = 1; k <= N; k++) {
    const t = k - 1 + dsc;
    const cf = (100 * c) / f + (k === N ? 100 : 0);
    const pv = cf / (1 + y / f) ** t;
    weighted += t * pv;
    total += pv;
  }
  return weighted / total / f;
}

/**
 * ACCRINT: par × rate × the year fraction from issue (or, with calc_method FALSE and settlement past the first
 * interest date, from first_interest) to settlement, in the day count of `basis`.
 */
export function accrint(issue: V, first: V, settlement: V, rate: V, par: V, frequency: V, basis: V, calcMethod: V): V {
  const nums = [issue, first, settlement, rate, par, frequency].map(argNumber);
  for (const x of nums) if (isErr(x)) return x;
  const [is, fi, st, r, p, f] = nums as number[];
  const b = optNumber(basis, 0);
  if (isErr(b)) return b;
  if (r! <= 0 || p! <= 0 || ![1, 2, 4].includes(f!) || b < 0 || b > 4 || st! <= is!) return Errors.num;
  const fromIssue =
    calcMethod === undefined ||
    calcMethod === null ||
    calcMethod === true ||
    (typeof calcMethod === "number" && calcMethod !== 0);
  const start = !fromIssue && st! > fi! ? fi! : is!;
  const frac = lib.YEARFRAC!(Math.trunc(start), Math.trunc(st!), Math.trunc(b));
  return typeof frac === "number" ? p! * r! * frac : frac;
}
