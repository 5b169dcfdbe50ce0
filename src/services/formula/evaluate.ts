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
 * (except functions that inspect errors, such as ISERROR), and calls the library (./libraryCalls.ts).
 */
import type { Expr } from "./expression";
import { lookupFunction, arityProblem } from "./functions";
import { compareValues, Errors, normalizeResult, toBoolean, toNumber, type FormulaValue } from "./values";
import { charge, elements } from "./cellBudget";
import { compileOperator } from "./operators";
import { compileLibraryCall } from "./libraryCalls";

export { evaluateCell, evaluateCellText, LIMIT_TEXT } from "./cellBudget";

/** Reads one column of the current row as an evaluator value. */
export type ValueSource = (columnId: string) => FormulaValue;
export type CompiledFormula = (get: ValueSource) => FormulaValue;

/** Functions whose results are dates: used to read a formula column's stored ms back as dates. */
export const DATE_RESULT_FUNCTIONS = new Set([
  "DATE",
  "DATEVALUE",
  "EDATE",
  "EOMONTH",
  "TODAY",
  "NOW",
  "WORKDAY",
  "WORKDAY.INTL",
  "WORKDAYINTL",
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
      return compileOperator(
        expr.op,
        compileFormula(expr.args[0]),
        compileFormula(expr.args[1]),
        expr.args[0].kind === "column" || expr.args[1].kind === "column",
      );
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
    case "IF":
      return args.length === 3 ? args.slice(1) : null;
    case "IFS":
      return args.filter((_, i) => i % 2 === 1);
    case "IFERROR":
    case "IFNA":
      return args.slice(0, 1);
    case "CHOOSE":
      return args.slice(1);
    case "SWITCH":
      return args.slice(1).filter((_, i) => i % 2 === 1 || (i === args.length - 2 && (args.length - 1) % 2 === 1));
    default:
      return null;
  }
}
