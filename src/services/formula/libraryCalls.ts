/**
 * A call of a library function (formulajs) as the evaluator compiles it (docs/api-guide.md › Formulas): arguments
 * evaluated and converted to what the library expects (dates as Date objects or serial numbers, numbers as text
 * where a function reads text), the first error argument propagated unless the function inspects errors, argument
 * bounds checked and the call's work charged to the cell's budget before it runs.
 */
import type { Expr } from "./expression";
import type { FunctionSpec } from "./functions";
import { dateToSerial, Errors, normalizeResult, numberText, type FormulaValue } from "./values";
import { parseNumberText } from "./parseText";
import { CALL_UNITS, ELEMENT_UNITS, THROW_UNITS } from "./limits";
import { argumentBoundError, argumentCost, hasArgumentBounds } from "./argumentBounds";
import { charge, elements } from "./cellBudget";
import type { CompiledFormula, ValueSource } from "./evaluate";

/** Functions that receive dates as Date objects (the library's date form); elsewhere a date is its serial number. */
const DATE_ARGUMENT_FUNCTIONS = new Set([
  "DATE",
  "DATEDIF",
  "DATEVALUE",
  "DAY",
  "DAYS",
  "DAYS360",
  "EDATE",
  "EOMONTH",
  "HOUR",
  "ISOWEEKNUM",
  "MINUTE",
  "MONTH",
  "NETWORKDAYS",
  "NETWORKDAYS.INTL",
  "NETWORKDAYSINTL",
  "SECOND",
  "TIMEVALUE",
  "WEEKDAY",
  "WEEKNUM",
  "WORKDAY",
  "WORKDAY.INTL",
  "WORKDAYINTL",
  "YEAR",
  "YEARFRAC",
  "TEXT",
]);

/** Functions that read their arguments as text themselves: date text stays text for them. */
const TEXT_DATE_FUNCTIONS = new Set(["DATEVALUE", "TIMEVALUE", "TEXT"]);

/**
 * Argument positions that a function reads as text ("*": all): a number there becomes its text as a spreadsheet
 * shows it (15 significant digits: LEN(1/3) is 17), not JavaScript's 17-digit form.
 */
const TEXT_ARGUMENTS: Record<string, number[] | "*"> = {
  LEN: [0],
  LEFT: [0],
  RIGHT: [0],
  MID: [0],
  UPPER: [0],
  LOWER: [0],
  TRIM: [0],
  CLEAN: [0],
  SUBSTITUTE: [0, 1, 2],
  REPLACE: [0, 3],
  FIND: [0, 1],
  EXACT: [0, 1],
  REPT: [0],
  CONCATENATE: "*",
  CONCAT: "*",
  TEXTJOIN: "*",
  CODE: [0],
  UNICODE: [0],
};

/** Functions that look at errors instead of failing with them. */
const ERROR_AWARE_FUNCTIONS = new Set([
  "ISERROR",
  "ISERR",
  "ISNA",
  "ERROR.TYPE",
  "TYPE",
  "ISBLANK",
  "ISNUMBER",
  "ISTEXT",
  "ISLOGICAL",
  "ISNONTEXT",
  "COUNT",
  "COUNTA",
  "COUNTBLANK",
  "AGGREGATE",
]);

export function compileLibraryCall(
  spec: FunctionSpec,
  compiled: CompiledFormula[],
  argExprs: readonly Expr[],
): CompiledFormula {
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
