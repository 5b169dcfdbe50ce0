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
import { lookupFunction, arityProblem, spreadsheetMod, type FunctionSpec } from "./functions";
import {
  addDays,
  compareValues,
  dateToSerial,
  daysBetween,
  Errors,
  normalizeResult,
  numberText,
  toBoolean,
  toNumber,
  toText,
  valueToCell,
  type FormulaValue,
} from "./values";
import * as formulajs from "@formulajs/formulajs";
import { parseNumberText } from "./parseText";
import { argumentBoundError, argumentCost, CALL_UNITS, ELEMENT_UNITS, formulaLimits, hasArgumentBounds, MAX_TEXT, THROW_UNITS } from "./limits";

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

// ---- the per-cell budget ----------------------------------------------------------------------------------

/**
 * Thrown through the evaluator when a cell's budget is spent, so no lazy function (IFERROR) can catch it;
 * `evaluateCell` turns it into #LIMIT!.
 */
class BudgetSpent {}
const SPENT = new BudgetSpent();

interface Budget {
  /** Work left (evaluator steps, array elements, estimated library cost). */
  units: number;
  /** Work the cell started with. */
  start: number;
  /** performance.now() past which a cell doing real work stops, and past which any cell stops. */
  deadline: number;
  hardDeadline: number;
}
let budget: Budget | null = null;

/**
 * Counts `units` of work against the current cell's budget, and with `clock` also looks at the time. The count
 * of work is what bounds a cell everywhere (Workers freeze the clock while code runs) and is deterministic; the
 * clock stops sooner a cell whose calls cost more than their count says. A wall clock also runs while the
 * process is descheduled or collecting garbage, so a cell that did little work is only stopped by the clock at
 * four times the budget, and a cheap formula's value never depends on the machine's load.
 */
function charge(units: number, clock: boolean): void {
  const b = budget;
  if (!b) return;
  b.units -= units;
  if (b.units < 0) throw SPENT;
  if (clock) {
    const now = performance.now();
    if (now > b.deadline && (b.start - b.units > b.start / 20 || now > b.hardDeadline)) throw SPENT;
  }
}

/** Elements of a value (1 for a scalar), and #LIMIT! past the array cap. */
function elements(v: FormulaValue): number {
  if (!Array.isArray(v)) return 1;
  if (v.length > formulaLimits.arrayElements) throw SPENT;
  return v.length;
}

export const LIMIT_CELL = Object.freeze({ error: "#LIMIT!" });
export const LIMIT_TEXT = JSON.stringify(LIMIT_CELL);

export interface CellEvaluation {
  /** The stored JSON text of the cell, or null for blank. */
  text: string | null;
  /** Work the cell used (for the run's budget). */
  units: number;
}

/**
 * Evaluates one cell within the per-cell budget (docs/api-guide.md, "Resource bounds"): past its time or work,
 * or with a stored value past its size, the cell is `{ "error": "#LIMIT!" }`. `maxUnits` lowers the work budget
 * (a run's remaining budget).
 */
export function evaluateCellText(f: CompiledFormula, get: ValueSource, maxUnits = formulaLimits.cellUnits): CellEvaluation {
  const units = Math.min(maxUnits, formulaLimits.cellUnits);
  const outer = budget;
  const now = performance.now();
  const mine: Budget = { units, start: units, deadline: now + formulaLimits.cellMs, hardDeadline: now + 4 * formulaLimits.cellMs };
  budget = mine;
  try {
    const value = f(get);
    elements(value);
    const cell = valueToCell(value);
    const text = cell === null ? null : JSON.stringify(cell);
    if (text !== null && text.length > formulaLimits.cellBytes) return { text: LIMIT_TEXT, units: units - mine.units };
    return { text, units: units - mine.units };
  } catch (err) {
    if (err === SPENT) return { text: LIMIT_TEXT, units: units - mine.units };
    throw err;
  } finally {
    budget = outer;
  }
}

/** One cell's stored value (parsed), within the per-cell budget. */
export function evaluateCell(f: CompiledFormula, get: ValueSource): unknown {
  const { text } = evaluateCellText(f, get);
  return text === null ? null : JSON.parse(text);
}

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

/**
 * `columnOperand`: a column's list (multiSelect labels, linked rows) is one value to an operator, not an array to
 * go through element by element, so `{Tags} + 1` stays #VALUE!; array constants and function results broadcast.
 */
function compileOperator(op: string, left: CompiledFormula, right: CompiledFormula, columnOperand = false): CompiledFormula {
  const elementwise = columnOperand ? (a: FormulaValue, b: FormulaValue, f: (a: FormulaValue, b: FormulaValue) => FormulaValue) => f(a, b) : broadcast;
  switch (op) {
    case "&":
      return (get) => {
        const a = toText(left(get));
        if (a instanceof Error) return a;
        const b = toText(right(get));
        if (b instanceof Error) return b;
        charge(1 + (a.length + b.length) / 64, false);
        return a.length + b.length > MAX_TEXT ? Errors.value : a + b;
      };
    case "=":
    case "<>":
    case "<":
    case "<=":
    case ">":
    case ">=":
      return (get) => {
        charge(1, false);
        return elementwise(left(get), right(get), (a, b) => {
          const c = compareValues(a, b);
          if (c instanceof Error) return c;
          switch (op) {
            case "=": return c === 0;
            case "<>": return c !== 0;
            case "<": return c < 0;
            case "<=": return c <= 0;
            case ">": return c > 0;
            default: return c >= 0;
          }
        });
      };
    default:
      return (get) => {
        charge(1, false);
        return elementwise(left(get), right(get), (a, b) => arithmetic(op, a, b));
      };
  }
}

/**
 * An operator over arrays, as Excel's array arithmetic: element by element (`{1,2} * {3,4}` is {3,8}), a single
 * value or one-item array against each element, and #N/A where one array is shorter than the other.
 */
function broadcast(a: FormulaValue, b: FormulaValue, f: (a: FormulaValue, b: FormulaValue) => FormulaValue): FormulaValue {
  if (!Array.isArray(a) && !Array.isArray(b)) return f(a, b);
  if (a instanceof Error) return a;
  if (b instanceof Error) return b;
  // Every element produced is counted: a row against a column makes their product, past the list cap #LIMIT!.
  let produced = 0;
  const leaf = (x: FormulaValue, y: FormulaValue) => {
    if (++produced > formulaLimits.arrayElements) throw SPENT;
    charge(1, false);
    return f(x, y);
  };
  const zip = (x: FormulaValue, y: FormulaValue): FormulaValue => {
    if (!Array.isArray(x) && !Array.isArray(y)) return leaf(x, y);
    if (!Array.isArray(x)) return (y as FormulaValue[]).map((v) => zip(x, v));
    if (!Array.isArray(y)) return x.map((v) => zip(v, y));
    if (x.length === 1 && y.length !== 1) return y.map((v) => zip(x[0]!, v));
    if (y.length === 1 && x.length !== 1) return x.map((v) => zip(v, y[0]!));
    return Array.from({ length: Math.max(x.length, y.length) }, (_, i) => (i < x.length && i < y.length ? zip(x[i]!, y[i]!) : Errors.na));
  };
  return zip(a, b);
}

function arithmetic(op: string, a: FormulaValue, b: FormulaValue): FormulaValue {
  if (a instanceof Error) return a;
  if (b instanceof Error) return b;
  if (op === "+" || op === "-") {
    if (a instanceof Date && !(b instanceof Date)) {
      const n = toNumber(b);
      return n instanceof Error ? n : normalizeResult(addDays(a, op === "+" ? n : -n));
    }
    if (op === "+" && b instanceof Date && !(a instanceof Date)) {
      const n = toNumber(a);
      return n instanceof Error ? n : normalizeResult(addDays(b, n));
    }
    if (op === "-" && a instanceof Date && b instanceof Date) return normalizeResult(daysBetween(a, b));
  }
  const x = toNumber(a);
  if (x instanceof Error) return x;
  const y = toNumber(b);
  if (y instanceof Error) return y;
  switch (op) {
    case "+": return normalizeResult(x + y);
    case "-": return normalizeResult(x - y);
    case "*": return normalizeResult(x * y);
    case "/": return y === 0 ? Errors.div0 : normalizeResult(x / y);
    case "%": return normalizeResult(spreadsheetMod(x, y));
    case "^": return normalizeResult(formulajs.POWER(x, y));
    default: return Errors.value;
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
  return (get) => {
    const values = args.map((a) => a(get));
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
      result = normalizeResult(impl(...values.map((v, i) => {
        if (textAt && (textAt === "*" || textAt.includes(i))) v = numbersAsText(v);
        // Date functions read date and time text as Excel does (HOUR("14:30") is 14).
        if (dateText && typeof v === "string" && !(intl && i === 2)) {
          const serial = parseNumberText(v);
          if (serial !== undefined) return new Date(Math.round((serial - 25_569) * 86_400_000));
        }
        return toLibraryArgument(v, passDates);
      })));
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
