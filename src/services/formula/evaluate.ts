/**
 * Compiles a validated formula tree into a closure evaluated once per row.
 *
 * Operators have spreadsheet semantics: `+ - * / ^` coerce through toNumber (blank → 0, "3" → 3, other text
 * → #VALUE!), `/` by zero is #DIV/0!, `%` is MOD (a − b·INT(a/b): the result takes the divisor's sign, so
 * -3 % 5 = 2; % 0 is #DIV/0!), `^` is POWER (0^0 is #NUM!), `&` concatenates text, comparisons follow
 * compareValues (text case-insensitive). Dates: date ± n is the date n days later/earlier, date − date is
 * the number of days between them; elsewhere a date counts as its serial number.
 * IF, IFS, IFERROR, IFNA, AND, OR, SWITCH and CHOOSE evaluate lazily (only the branch taken; AND/OR stop at
 * the first FALSE/TRUE). Every other call evaluates its arguments, propagates the first error argument
 * (except functions that inspect errors, such as ISERROR), and calls the library.
 */
import type { Expr } from "./expression";
import { lookupFunction, arityProblem, type FunctionSpec } from "./functions";
import {
  compareValues,
  dateToSerial,
  Errors,
  normalizeResult,
  numberText,
  toBoolean,
  toNumber,
  type FormulaValue,
} from "./values";
import { parseNumberText } from "./parseText";
import { argumentBoundError, argumentCost, CALL_UNITS, ELEMENT_UNITS, hasArgumentBounds, THROW_UNITS } from "./limits";
import { charge, elements } from "./cellBudget";
import { compileOperator } from "./operators";

export { evaluateCell, evaluateCellText, LIMIT_TEXT } from "./cellBudget";

/** Reads one column of the current row as an evaluator value. */
export type ValueSource = (columnId: string) => FormulaValue;
export type CompiledFormula = (get: ValueSource) => FormulaValue;

/** Functions that receive dates as Date objects (the library's date form); elsewhere a date is its serial number. */
const DATE_ARGUMENT_FUNCTIONS = new Set([
  "DATE", "DATEDIF", "DATEVALUE", "DAY", "DAYS", "DAYS360", "EDATE", "EOMONTH", "HOUR", "ISOWEEKNUM", "MINUTE",
  "MONTH", "NETWORKDAYS", "NETWORKDAYS.INTL", "NETWORKDAYSINTL", "SECOND", "TIMEVALUE", "WEEKDAY", "WEEKNUM",
  "WORKDAY", "WORKDAY.INTL", "WORKDAYINTL", "YEAR", "YEARFRAC", "TEXT",
]);

/** Functions that read their arguments as text themselves: date text stays text for them. */
const TEXT_DATE_FUNCTIONS = new Set(["DATEVALUE", "TIMEVALUE", "TEXT"]);

/**
 * Argument positions that a function reads as text ("*": all): a number there becomes its text as a spreadsheet
 * shows it (15 significant digits: LEN(1/3) is 17), not JavaScript's 17-digit form.
 */
const TEXT_ARGUMENTS: Record<string, number[] | "*"> = {
  LEN: [0], LEFT: [0], RIGHT: [0], MID: [0], UPPER: [0], LOWER: [0], TRIM: [0], CLEAN: [0], SUBSTITUTE: [0, 1, 2],
  REPLACE: [0, 3], FIND: [0, 1], EXACT: [0, 1], REPT: [0], CONCATENATE: "*", CONCAT: "*", TEXTJOIN: "*", CODE: [0], UNICODE: [0],
};

/** Functions whose results are dates: used to read a formula column's stored ms back as dates. */
export const DATE_RESULT_FUNCTIONS = new Set(["DATE", "DATEVALUE", "EDATE", "EOMONTH", "TODAY", "NOW", "WORKDAY", "WORKDAY.INTL", "WORKDAYINTL"]);

/** Functions that look at errors instead of failing with them. */
const ERROR_AWARE_FUNCTIONS = new Set([
  "ISERROR", "ISERR", "ISNA", "ERROR.TYPE", "TYPE", "ISBLANK", "ISNUMBER", "ISTEXT", "ISLOGICAL", "ISNONTEXT",
  "COUNT", "COUNTA", "COUNTBLANK", "AGGREGATE",
]);

export function compileFormula(expr: Expr): CompiledFormula {
  switch (expr.kind) {
    case "literal": {
      const v = expr.value;
      return () => v;
    }
    case "array": {
      // Rows of constants, as the library takes a range (SUM flattens it, MMULT reads it as a matrix).
      const rows = expr.rows;
      return () => rows.map((r) => [...r]);
    }
    case "column": {
      const id = expr.columnId;
      return (get) => {
        const v = get(id);
        charge(elements(v), false);
        return v;
      };
    }
    case "neg": {
      const arg = compileFormula(expr.arg);
      const negate = (v: FormulaValue): FormulaValue => {
        if (Array.isArray(v)) return v.map(negate);
        const n = toNumber(v);
        return n instanceof Error ? n : normalizeResult(-n);
      };
      return (get) => {
        charge(1, false);
        const v = arg(get);
        if (Array.isArray(v)) charge(elements(v), false);
        return negate(v);
      };
    }
    case "name": {
      const name = expr.name.toUpperCase();
      return () => {
        for (let i = bindings.length - 1; i >= 0; i--) if (bindings[i]![0] === name) return bindings[i]![1];
        return Errors.name;
      };
    }
    case "op":
      return compileOperator(expr.op, compileFormula(expr.args[0]), compileFormula(expr.args[1]), expr.args[0].kind === "column" || expr.args[1].kind === "column");
    case "call":
      return compileCall(expr.fn.toUpperCase(), expr.args.map(compileFormula), expr.args);
  }
}

type LazyImpl = (args: CompiledFormula[], get: ValueSource, exprs: readonly Expr[]) => FormulaValue;

/** The names LET has bound around the node being evaluated (innermost last); evaluation is synchronous. */
const bindings: Array<[string, FormulaValue]> = [];

const LAZY: Record<string, LazyImpl> = {
  IF: ([cond, yes, no], get) => {
    const c = toBoolean(cond!(get));
    if (c instanceof Error) return c;
    if (c) return yes ? yes(get) : true;
    return no ? no(get) : false;
  },
  IFS: (args, get) => {
    for (let i = 0; i + 1 < args.length; i += 2) {
      const c = toBoolean(args[i]!(get));
      if (c instanceof Error) return c;
      if (c) return args[i + 1]!(get);
    }
    return Errors.na;
  },
  IFERROR: ([value, alt], get) => {
    const v = value!(get);
    return v instanceof Error ? alt!(get) : v;
  },
  IFNA: ([value, alt], get) => {
    const v = value!(get);
    return v instanceof Error && v.message === "#N/A" ? alt!(get) : v;
  },
  LET: (args, get, exprs) => {
    const before = bindings.length;
    try {
      for (let i = 0; i + 1 < args.length; i += 2) {
        const name = exprs[i];
        if (name?.kind !== "name") return Errors.value;
        bindings.push([name.name.toUpperCase(), args[i + 1]!(get)]);
      }
      return args[args.length - 1]!(get);
    } finally {
      bindings.length = before;
    }
  },
  AND: (args, get, exprs) => logical(args, get, false, exprs),
  OR: (args, get, exprs) => logical(args, get, true, exprs),
  SWITCH: ([subject, ...rest], get) => {
    const s = subject!(get);
    if (s instanceof Error) return s;
    let i = 0;
    for (; i + 1 < rest.length; i += 2) {
      const c = compareValues(s, rest[i]!(get));
      if (c instanceof Error) return c;
      if (c === 0) return rest[i + 1]!(get);
    }
    return i < rest.length ? rest[i]!(get) : Errors.na;
  },
  CHOOSE: ([index, ...options], get) => {
    const n = toNumber(index!(get));
    if (n instanceof Error) return n;
    const k = Math.trunc(n);
    return k >= 1 && k <= options.length ? options[k - 1]!(get) : Errors.value;
  },
};

/**
 * AND/OR: in a column (a reference) or a list, text and blanks are ignored and a list counts element by element;
 * text typed as an argument must read as TRUE or FALSE (else #VALUE!, as in Excel); none logical at all is #VALUE!.
 */
function logical(args: CompiledFormula[], get: ValueSource, stopAt: boolean, exprs: readonly Expr[]): FormulaValue {
  let seen = false;
  const consider = (v: FormulaValue, typed = false): boolean | Error | undefined => {
    if (v instanceof Error) return v;
    if (typed && typeof v === "string") {
      const b = toBoolean(v);
      if (b instanceof Error || v.trim() === "") return Errors.value;
      seen = true;
      return b === stopAt ? stopAt : undefined;
    }
    if (v === null || typeof v === "string") return undefined;
    if (Array.isArray(v)) {
      for (const item of v) {
        const r = consider(item);
        if (r !== undefined) return r;
      }
      return undefined;
    }
    seen = true;
    const b = v instanceof Date ? true : typeof v === "number" ? v !== 0 : v;
    return b === stopAt ? stopAt : undefined;
  };
  for (let i = 0; i < args.length; i++) {
    const r = consider(args[i]!(get), exprs[i]?.kind !== "column");
    if (r !== undefined) return r;
  }
  return seen ? !stopAt : Errors.value;
}

function compileCall(name: string, args: CompiledFormula[], argExprs: readonly Expr[]): CompiledFormula {
  const spec = lookupFunction(name);
  // A persisted tree was validated when applied; a function that has since vanished reads like a spreadsheet.
  if (!spec) return () => Errors.name;
  if (arityProblem(spec, args.length)) return () => Errors.value;
  const lazy = LAZY[spec.name];
  if (lazy)
    return (get) => {
      charge(1, false);
      return lazy(args, get, argExprs);
    };
  return compileLibraryCall(spec, args, argExprs);
}

function compileLibraryCall(spec: FunctionSpec, compiled: CompiledFormula[], argExprs: readonly Expr[]): CompiledFormula {
  const passDates = DATE_ARGUMENT_FUNCTIONS.has(spec.name);
  const errorAware = spec.errorAware || ERROR_AWARE_FUNCTIONS.has(spec.name);
  // A column read is a cell reference: functions that tell references from typed values see it as a range.
  const args = spec.references
    ? compiled.map((a, i) => {
        if (argExprs[i]?.kind !== "column") return a;
        return (get: ValueSource) => {
          const v = a(get);
          return Array.isArray(v) || v instanceof Error ? v : [v];
        };
      })
    : compiled;
  const bounded = hasArgumentBounds(spec.name);
  const impl = spec.impl;
  const textAt = TEXT_ARGUMENTS[spec.name];
  const dateText = passDates && !TEXT_DATE_FUNCTIONS.has(spec.name);
  // The .INTL functions' third argument is a weekend mask such as "0000011", not a date.
  const intl = spec.name.includes("INTL");
  // Arguments reach the library as they are unless one needs converting (text positions, dates, lists).
  const convertsAlways = Boolean(textAt) || dateText;
  const convert = (v: FormulaValue, i: number): unknown => {
    if (textAt && (textAt === "*" || textAt.includes(i))) v = numbersAsText(v);
    // Date functions read date and time text as Excel does (HOUR("14:30") is 14).
    if (dateText && typeof v === "string" && !(intl && i === 2)) {
      const serial = parseNumberText(v);
      if (serial !== undefined) return new Date(Math.round((serial - 25_569) * 86_400_000));
    }
    return toLibraryArgument(v, passDates);
  };
  return (get) => {
    const values: FormulaValue[] = new Array(args.length);
    for (let i = 0; i < args.length; i++) values[i] = args[i]!(get);
    if (!errorAware) {
      for (const v of values) {
        if (v instanceof Error) return v;
        if (Array.isArray(v)) for (const item of v) if (item instanceof Error) return item;
      }
    }
    if (bounded) {
      const past = argumentBoundError(spec.name, values);
      if (past) return past;
    }
    // A library call costs its fixed overhead, its inputs and its own estimate (loops over an argument's value):
    // charged before it runs, so a call the cell cannot afford never starts; the clock is looked at too.
    let cost = CALL_UNITS;
    for (const v of values) cost += elements(v) * ELEMENT_UNITS;
    if (bounded) cost += argumentCost(spec.name, values) ?? 0;
    charge(cost, true);
    let result: FormulaValue;
    try {
      const plain = !convertsAlways && values.every((v) => !(v instanceof Date) && !Array.isArray(v));
      result = normalizeResult(impl(...(plain ? values : values.map(convert))));
    } catch {
      // A library call that throws (mostly a recursion past the stack) cost far more than its count said.
      charge(THROW_UNITS, true);
      return Errors.value;
    }
    // ... and its output, after it ran (a slow call shows on the clock).
    charge(Array.isArray(result) ? elements(result) * ELEMENT_UNITS : 0, true);
    return result;
  };
}

/** Numbers (and the numbers of a list) as the text a spreadsheet shows for them. */
function numbersAsText(v: FormulaValue): FormulaValue {
  if (typeof v === "number") return numberText(v);
  if (Array.isArray(v)) return v.map(numbersAsText);
  return v;
}

/** Dates as the library expects them; lists copied, since some library functions parse arrays in place. */
function toLibraryArgument(v: FormulaValue, passDates: boolean): unknown {
  if (v instanceof Date) return passDates ? new Date(v.getTime()) : dateToSerial(v);
  if (Array.isArray(v)) return v.map((x) => toLibraryArgument(x, passDates));
  return v;
}

/**
 * Whether a tree always yields a date (or blank), from the column types it reads; `columnYieldsDate` answers
 * for referenced columns. Used to read a formula column's stored ms back as dates.
 */
export function expressionYieldsDate(expr: Expr, columnYieldsDate: (columnId: string) => boolean): boolean {
  switch (expr.kind) {
    case "literal":
    case "array":
    case "name":
      return false;
    case "column":
      return columnYieldsDate(expr.columnId);
    case "neg":
      return false;
    case "op": {
      if (expr.op !== "+" && expr.op !== "-") return false;
      const [a, b] = expr.args.map((x) => expressionYieldsDate(x, columnYieldsDate));
      return expr.op === "+" ? a !== b : Boolean(a && !b);
    }
    case "call": {
      const fn = expr.fn.toUpperCase();
      if (DATE_RESULT_FUNCTIONS.has(fn)) return true;
      const branches = branchesOf(fn, expr.args);
      if (!branches) return false;
      const isBlank = (e: Expr) => e.kind === "literal" && e.value === null;
      const live = branches.filter((e) => !isBlank(e));
      return live.length > 0 && live.every((e) => expressionYieldsDate(e, columnYieldsDate));
    }
  }
}

/** The argument positions a lazy function may return. */
function branchesOf(fn: string, args: Expr[]): Expr[] | null {
  switch (fn) {
    case "IF": return args.length === 3 ? args.slice(1) : null;
    case "IFS": return args.filter((_, i) => i % 2 === 1);
    case "IFERROR":
    case "IFNA": return args.slice(0, 1);
    case "CHOOSE": return args.slice(1);
    case "SWITCH": return args.slice(1).filter((_, i) => i % 2 === 1 || (i === args.length - 2 && (args.length - 1) % 2 === 1));
    default: return null;
  }
}
