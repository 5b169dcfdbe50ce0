/**
 * The function library a formula may call: every function @formulajs/formulajs exports, under its spreadsheet
 * name (dotted names such as NORM.S.DIST included), with the number of arguments it takes.
 *
 * Arity comes from the library where it can: `Function.length` is the upper bound of a fixed-arity function,
 * and a function declared with no parameters (it reads `arguments`) is variadic unless it is one of the few
 * true zero-argument functions. `Function.length` cannot tell which trailing parameters are optional (the
 * library checks `=== undefined` in the body), so the common functions carry their spreadsheet arity in an
 * explicit table; any other function must receive all of its declared parameters, which is safe (a missing
 * argument is never silently read as 0).
 */
import * as formulajs from "@formulajs/formulajs";
import { Errors, toNumber, type FormulaValue } from "./values";
import { EXCEL_FUNCTIONS } from "./excel";

export type LibraryFunction = (...args: unknown[]) => unknown;

export interface FunctionSpec {
  name: string;
  impl: LibraryFunction;
  min: number;
  max: number;
  /** Arguments must come in pairs after `min` (IFS). */
  pairs?: boolean;
  /** Column reads arrive as one-item arrays, as cell references do in a spreadsheet (excel.ts). */
  references?: boolean;
  /** Errors arrive as arguments instead of failing the call first. */
  errorAware?: boolean;
}

/** Declared with no parameters but taking none (the rest read `arguments`). */
const ZERO_ARG = new Set(["TRUE", "FALSE", "NA", "NOW", "TODAY", "PI", "RAND"]);
/** Rest parameters (`...args`) do not count in Function.length. */
const REST_PARAMS = new Set(["CHOOSECOLS", "CHOOSEROWS", "HSTACK", "VSTACK", "TEXTJOIN"]);
const MANY = Number.POSITIVE_INFINITY;

/** Spreadsheet arity of the common functions: [min, max]. */
const ARITY: Record<string, [number, number]> = {
  // logical
  IF: [2, 3],
  IFS: [2, MANY],
  IFERROR: [2, 2],
  IFNA: [2, 2],
  AND: [1, MANY],
  OR: [1, MANY],
  XOR: [1, MANY],
  NOT: [1, 1],
  SWITCH: [3, MANY],
  CHOOSE: [2, MANY],
  // math
  ROUND: [2, 2],
  ROUNDUP: [2, 2],
  ROUNDDOWN: [2, 2],
  TRUNC: [1, 2],
  INT: [1, 1],
  ABS: [1, 1],
  MOD: [2, 2],
  POWER: [2, 2],
  SQRT: [1, 1],
  CEILING: [1, 2],
  FLOOR: [1, 2],
  CEILINGMATH: [1, 3],
  "CEILING.MATH": [1, 3],
  FLOORMATH: [1, 3],
  "FLOOR.MATH": [1, 3],
  CEILINGPRECISE: [1, 2],
  "CEILING.PRECISE": [1, 2],
  FLOORPRECISE: [1, 2],
  "FLOOR.PRECISE": [1, 2],
  "ISO.CEILING": [1, 2],
  LOG: [1, 2],
  LN: [1, 1],
  LOG10: [1, 1],
  EXP: [1, 1],
  SIGN: [1, 1],
  MROUND: [2, 2],
  EVEN: [1, 1],
  ODD: [1, 1],
  RANDBETWEEN: [2, 2],
  QUOTIENT: [2, 2],
  FACT: [1, 1],
  COMBIN: [2, 2],
  SUMIF: [2, 3],
  AVERAGEIF: [2, 3],
  COUNTIF: [2, 2],
  ROMAN: [1, 2],
  BASE: [2, 3],
  DECIMAL: [2, 2],
  RADIANS: [1, 1],
  DEGREES: [1, 1],
  ATAN2: [2, 2],
  GCD: [1, MANY],
  LCM: [1, MANY],
  // text
  LEFT: [1, 2],
  RIGHT: [1, 2],
  MID: [3, 3],
  LEN: [1, 1],
  UPPER: [1, 1],
  LOWER: [1, 1],
  PROPER: [1, 1],
  TRIM: [1, 1],
  CLEAN: [1, 1],
  CONCATENATE: [1, MANY],
  CONCAT: [1, MANY],
  TEXTJOIN: [3, MANY],
  SUBSTITUTE: [3, 4],
  REPLACE: [4, 4],
  FIND: [2, 3],
  SEARCH: [2, 3],
  REPT: [2, 2],
  TEXT: [2, 2],
  VALUE: [1, 1],
  EXACT: [2, 2],
  CHAR: [1, 1],
  CODE: [1, 1],
  UNICHAR: [1, 1],
  UNICODE: [1, 1],
  T: [1, 1],
  N: [1, 1],
  FIXED: [1, 3],
  DOLLAR: [1, 2],
  NUMBERVALUE: [1, 3],
  // information
  ISBLANK: [1, 1],
  ISERROR: [1, 1],
  ISERR: [1, 1],
  ISNA: [1, 1],
  ISNUMBER: [1, 1],
  ISTEXT: [1, 1],
  ISLOGICAL: [1, 1],
  ISNONTEXT: [1, 1],
  ISEVEN: [1, 1],
  ISODD: [1, 1],
  TYPE: [1, 1],
  "ERROR.TYPE": [1, 1],
  // date and time
  DATE: [3, 3],
  YEAR: [1, 1],
  MONTH: [1, 1],
  DAY: [1, 1],
  HOUR: [1, 1],
  MINUTE: [1, 1],
  SECOND: [1, 1],
  TIME: [3, 3],
  DATEVALUE: [1, 1],
  TIMEVALUE: [1, 1],
  DAYS: [2, 2],
  DAYS360: [2, 3],
  DATEDIF: [3, 3],
  EDATE: [2, 2],
  EOMONTH: [2, 2],
  WEEKDAY: [1, 2],
  WEEKNUM: [1, 2],
  ISOWEEKNUM: [1, 1],
  NETWORKDAYS: [2, 3],
  "NETWORKDAYS.INTL": [2, 4],
  NETWORKDAYSINTL: [2, 4],
  WORKDAY: [2, 3],
  "WORKDAY.INTL": [2, 4],
  WORKDAYINTL: [2, 4],
  YEARFRAC: [2, 3],
  // statistics and lists
  LARGE: [2, 2],
  SMALL: [2, 2],
  SORT: [1, 4],
  UNIQUE: [1, 3],
  // Excel's optional trailing arguments of functions the library declares with all parameters
  ACCRINT: [6, 8],
  "BETA.DIST": [4, 6],
  "BETA.INV": [3, 5],
  COMPLEX: [2, 3],
  COUPDAYS: [3, 4],
  DELTA: [1, 2],
  GESTEP: [1, 2],
  DEC2BIN: [1, 2],
  DEC2HEX: [1, 2],
  DEC2OCT: [1, 2],
  HEX2BIN: [1, 2],
  HEX2OCT: [1, 2],
  OCT2BIN: [1, 2],
  OCT2HEX: [1, 2],
  BIN2HEX: [1, 2],
  BIN2OCT: [1, 2],
  DISC: [4, 5],
  PRICEDISC: [4, 5],
  DROP: [2, 3],
  TAKE: [2, 3],
  EXPAND: [2, 4],
  TREND: [1, 3],
  LINEST: [1, 2],
  LOGEST: [1, 2],
  GROWTH: [1, 4],
  "PERCENTRANK.INC": [2, 3],
  "PERCENTRANK.EXC": [2, 3],
  PROB: [3, 4],
  "RANK.AVG": [2, 3],
  XIRR: [2, 3],
  SUBTOTAL: [2, MANY],
  AGGREGATE: [3, MANY],
  // financial
  PMT: [3, 5],
  FV: [3, 5],
  PV: [3, 5],
  NPER: [3, 5],
  RATE: [3, 6],
  IPMT: [4, 6],
  PPMT: [4, 6],
  NPV: [2, MANY],
  IRR: [1, 2],
  SLN: [3, 3],
  SYD: [4, 4],
  DB: [4, 5],
  DDB: [4, 5],
  EFFECT: [2, 2],
  NOMINAL: [2, 2],
};

/**
 * MOD as spreadsheets define it: a − b·INT(a/b), the result taking the divisor's sign. The library's MOD is
 * wrong for negative operands (formulajs 4.6.1: MOD(-6, 3) = 3, MOD(3, -5) = -3; spreadsheets: 0 and -2), so
 * it is replaced here and the `%` operator uses the same function.
 */
export function spreadsheetMod(a: unknown, b: unknown): number | Error {
  const x = toNumber((a ?? null) as FormulaValue);
  if (x instanceof Error) return x;
  const y = toNumber((b ?? null) as FormulaValue);
  if (y instanceof Error) return y;
  if (y === 0) return Errors.div0;
  const r = x - y * Math.floor(x / y);
  // x/y rounding can leave r == y (e.g. tiny negative x); a modulus is always strictly inside (−|y|, |y|).
  return Math.abs(r) >= Math.abs(y) ? 0 : r;
}

/** Powers of ten that are exact doubles (10^0 … 10^22). */
const POW10 = Array.from({ length: 23 }, (_, i) => 10 ** i);

/**
 * ROUND, ROUNDUP and ROUNDDOWN without the library's text round trips, giving exactly its results. The library
 * shifts the decimal point through text: q = Number(`${|x|}e${digits}`) (so 1.005 rounds to 1.01, as its decimal
 * text says), then k = roundFn(q) and Number(`${k}e${-digits}`). Here, when |x| prints without an exponent and
 * |digits| ≤ 22: p = |x|·10^digits in one rounded operation lies within 3·2^-53·p of q (both are the nearest
 * doubles to numbers that differ by at most half an ulp of |x| times 10^digits), so when p is farther than
 * 2^-48·p from the rounding boundary (the half for ROUND, the integers for ROUNDUP/ROUNDDOWN), roundFn(p) = roundFn(q);
 * and for a safe integer k, k / 10^digits (or k · 10^-digits) is one correctly rounded operation on exact values,
 * which is what parsing `${k}e${-digits}` gives. Everything else (near a boundary, texts, booleans, blanks,
 * errors, fractional digits, exponent forms) goes to the library. A whole-table computation may call ROUND per row.
 */
function roundLike(
  library: LibraryFunction,
  roundFn: (x: number) => number,
  boundary: "half" | "integer",
): LibraryFunction {
  return (number: unknown, num_digits: unknown) => {
    if (
      typeof number === "number" &&
      typeof num_digits === "number" &&
      Number.isInteger(num_digits) &&
      Math.abs(num_digits) <= 22
    ) {
      const val = Math.abs(number);
      // Number → text without an exponent: 0, and 1e-6 ≤ |x| < 1e21.
      if (val === 0 || (val >= 1e-6 && val < 1e21)) {
        const scale = POW10[Math.abs(num_digits)]!;
        const p = num_digits >= 0 ? val * scale : val / scale;
        const frac = p - Math.floor(p);
        const tolerance = p * 2 ** -48;
        const clear = boundary === "half" ? Math.abs(frac - 0.5) > tolerance : frac > tolerance && 1 - frac > tolerance;
        if (clear) {
          const k = roundFn(p);
          if (Number.isSafeInteger(k)) return (num_digits >= 0 ? k / scale : k * scale) * (number >= 0 ? 1 : -1);
        }
      }
    }
    return library(number, num_digits);
  };
}

/** Library functions that disagree with spreadsheets, replaced by name (and ROUND's family, only made faster). */
const CORRECTIONS: Record<string, LibraryFunction> = {
  MOD: spreadsheetMod as LibraryFunction,
  ROUND: roundLike(formulajs.ROUND as LibraryFunction, Math.round, "half"),
  ROUNDUP: roundLike(formulajs.ROUNDUP as LibraryFunction, Math.ceil, "integer"),
  ROUNDDOWN: roundLike(formulajs.ROUNDDOWN as LibraryFunction, Math.floor, "integer"),
};

/**
 * Dotted names that only exist because the library hangs variants on a function object that also has a
 * legacy name (CHIDIST is CHISQ.DIST, so CHISQ.DIST.RT also shows up as CHIDIST.RT); no spreadsheet has them.
 */
const NOT_SPREADSHEET_NAMES = new Set([
  "BINOMDIST.RANGE",
  "CHIDIST.RT",
  "CHIINV.RT",
  "FDIST.RT",
  "FINV.RT",
  "ISO.CEILING.MATH",
  "ISO.CEILING.PRECISE",
  "TDIST.2T",
  "TDIST.RT",
  "TINV.2T",
]);

/** Every callable the library exports, by spreadsheet name: `NORM.S.DIST` is `formulajs.NORM.S.DIST`. */
function libraryFunctions(): Map<string, LibraryFunction> {
  const out = new Map<string, LibraryFunction>();
  const walk = (holder: object, prefix: string) => {
    for (const key of Object.keys(holder)) {
      if (!prefix && key === "utils") continue;
      const value = (holder as Record<string, unknown>)[key];
      const name = prefix ? `${prefix}.${key}` : key;
      if (!/^[A-Z][A-Z0-9]*(\.[A-Z0-9]+)*$/.test(name)) continue;
      if (typeof value === "function" && !NOT_SPREADSHEET_NAMES.has(name)) out.set(name, value as LibraryFunction);
      if (value && (typeof value === "object" || typeof value === "function")) walk(value, name);
    }
  };
  walk(formulajs, "");
  return out;
}

function arityOf(name: string, fn: LibraryFunction): [number, number] {
  const known = ARITY[name];
  if (known) return known;
  if (REST_PARAMS.has(name)) return [fn.length, MANY];
  if (fn.length === 0) return ZERO_ARG.has(name) ? [0, 0] : [1, MANY];
  return [fn.length, fn.length];
}

function buildCatalog(): Map<string, FunctionSpec> {
  const catalog = new Map<string, FunctionSpec>();
  for (const [name, impl] of libraryFunctions()) {
    const [min, max] = arityOf(name, impl);
    catalog.set(name, { name, impl: CORRECTIONS[name] ?? impl, min, max, ...(name === "IFS" && { pairs: true }) });
  }
  // Excel's semantics where the library departs from them, and the common functions it lacks (excel.ts).
  for (const [name, f] of Object.entries(EXCEL_FUNCTIONS)) {
    catalog.set(name, {
      name,
      impl: f.impl,
      min: f.min,
      max: f.max,
      ...(f.references && { references: true }),
      ...(f.errorAware && { errorAware: true }),
      ...(f.pairs && { pairs: true }),
    });
  }
  return catalog;
}

export const FUNCTION_CATALOG: ReadonlyMap<string, FunctionSpec> = buildCatalog();

/** The spec of a function by name, case-insensitively (spreadsheets accept `sum` for SUM). */
export function lookupFunction(name: string): FunctionSpec | undefined {
  return FUNCTION_CATALOG.get(name.toUpperCase());
}

/** A human-readable arity for error messages. */
export function describeArity(spec: FunctionSpec): string {
  if (spec.max === MANY) return `at least ${spec.min} argument${spec.min === 1 ? "" : "s"}`;
  if (spec.min === spec.max) return `${spec.min} argument${spec.min === 1 ? "" : "s"}`;
  return `${spec.min} to ${spec.max} arguments`;
}

/** null when `count` arguments fit the function, else the reason. */
export function arityProblem(spec: FunctionSpec, count: number): string | null {
  if (count < spec.min || count > spec.max) return `${spec.name} takes ${describeArity(spec)}, got ${count}`;
  if (spec.pairs && (count - spec.min) % 2 !== 0)
    return `${spec.name} takes its arguments in condition/value pairs, got ${count}`;
  return null;
}

/** Parameter names as the library declares them (`function ROUND(number, num_digits)`), or [] when unreadable. */
function declaredParameters(impl: LibraryFunction): string[] {
  const m = /^[^(]*\(([^)]*)\)/.exec(Function.prototype.toString.call(impl));
  if (!m) return [];
  const names = m[1]!
    .split(",")
    .map((p) =>
      p
        .replace(/=.*$/, "")
        .replace(/^\.\.\./, "")
        .trim(),
    )
    .filter(Boolean);
  return names.every((n) => /^[A-Za-z_$][\w$]*$/.test(n)) ? names : [];
}

/** How a function is called, for messages: `ROUND(number, num_digits)`, `IF(logical_test, value_if_true, [value_if_false])`, `SUM(value1, …)`. */
export function signatureOf(spec: FunctionSpec): string {
  const declared = declaredParameters(spec.impl);
  const shown = spec.max === MANY ? Math.max(spec.min, 1) : spec.max;
  const params: string[] = [];
  for (let i = 0; i < shown; i++) {
    const name = declared[i] ?? (spec.max === MANY ? `value${i + 1}` : `arg${i + 1}`);
    params.push(i < spec.min ? name : `[${name}]`);
  }
  if (spec.max === MANY) params.push("…");
  return `${spec.name}(${params.join(", ")})`;
}
