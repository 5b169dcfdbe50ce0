/**
 * Values inside the evaluator, and how cells become values and results become cells.
 *
 * Inside, a value is what the spreadsheet library understands: number, string, boolean, null (blank),
 * Date (a date column; the library's date form), an Error whose message is a spreadsheet error code
 * (`#DIV/0!`, the library's own error objects), or an array (multiSelect labels, oneMany row ids).
 * In a cell, a date is a ms number and an error is `{ "error": "#DIV/0!" }` (docs/api-guide.md › Tables, columns, rows, cells; Formulas).
 */
import * as formulajs from "@formulajs/formulajs";
import { parseNumberText } from "./parseText";

export type FormulaValue = number | string | boolean | null | Date | Error | FormulaValue[];

const libraryErrors = formulajs.utils.errors as unknown as Record<string, Error>;

/** The spreadsheet error codes a cell can hold; #LIMIT! is a cell past its resource budget (docs/api-guide.md). */
export const ERROR_CODES = [
  "#DIV/0!",
  "#VALUE!",
  "#REF!",
  "#NAME?",
  "#NUM!",
  "#N/A",
  "#NULL!",
  "#CALC!",
  "#ERROR!",
  "#LIMIT!",
] as const;
export type ErrorCode = (typeof ERROR_CODES)[number];

/** The library's own error instances, so its functions recognize an error we pass in (they test identity). */
const errorByCode = new Map<string, Error>(Object.values(libraryErrors).map((e) => [e.message, e]));

export function formulaError(code: ErrorCode): Error {
  return errorByCode.get(code) ?? new Error(code);
}

export const Errors = {
  div0: formulaError("#DIV/0!"),
  value: formulaError("#VALUE!"),
  ref: formulaError("#REF!"),
  name: formulaError("#NAME?"),
  num: formulaError("#NUM!"),
  na: formulaError("#N/A"),
};

export function isFormulaError(v: unknown): v is Error {
  return v instanceof Error;
}

/** The cell form of an error; anything that is not a spreadsheet code (a thrown JS error) is #VALUE!. */
export function errorCode(e: Error): ErrorCode {
  return (ERROR_CODES as readonly string[]).includes(e.message) ? (e.message as ErrorCode) : "#VALUE!";
}

// ---- dates -----------------------------------------------------------------------------------------------

const MS_PER_DAY = 86_400_000;
/** Serial number of 1970-01-01 in the 1900 date system (valid from 1900-03-01, as in every spreadsheet). */
const UNIX_EPOCH_SERIAL = 25_569;

export function dateToSerial(d: Date): number {
  return d.getTime() / MS_PER_DAY + UNIX_EPOCH_SERIAL;
}

export function addDays(d: Date, days: number): Date {
  return new Date(d.getTime() + days * MS_PER_DAY);
}

export function daysBetween(a: Date, b: Date): number {
  return (a.getTime() - b.getTime()) / MS_PER_DAY;
}

/** `2024-01-31` for a midnight (UTC) date, else the full ISO timestamp. */
export function dateText(d: Date): string {
  if (Number.isNaN(d.getTime())) return "";
  const iso = d.toISOString();
  return d.getTime() % MS_PER_DAY === 0 ? iso.slice(0, 10) : iso;
}

// ---- coercions with spreadsheet semantics ----------------------------------------------------------------

/**
 * For arithmetic: blank → 0, TRUE → 1, a date → its serial number, text that reads as a number ("3", "1,000",
 * "50%", "$5", a date) → that number; other text, "" included, is #VALUE! (as in Excel: `"" + 1` is #VALUE!).
 */
export function toNumber(v: FormulaValue): number | Error {
  if (v === null) return 0;
  if (typeof v === "number") return v;
  if (typeof v === "boolean") return v ? 1 : 0;
  if (typeof v === "string") return parseNumberText(v) ?? Errors.value;
  if (v instanceof Date) return dateToSerial(v);
  if (v instanceof Error) return v;
  return Errors.value;
}

/** A number as a spreadsheet shows it in text: 15 significant digits, so 0.1 + 0.2 reads "0.3". */
export function numberText(n: number): string {
  if (Number.isInteger(n) && Math.abs(n) < 1e21) return String(n);
  return String(Number(n.toPrecision(15)));
}

/** For `&` and text functions: blank → "", TRUE → "TRUE", dates as ISO text, lists joined with ", ". */
export function toText(v: FormulaValue): string | Error {
  if (v === null) return "";
  if (typeof v === "string") return v;
  if (typeof v === "number") return numberText(v);
  if (typeof v === "boolean") return v ? "TRUE" : "FALSE";
  if (v instanceof Date) return dateText(v);
  if (v instanceof Error) return v;
  const parts: string[] = [];
  for (const item of v) {
    const t = toText(item);
    if (t instanceof Error) return t;
    if (t !== "") parts.push(t);
  }
  return parts.join(", ");
}

/** For conditions: blank → FALSE, numbers ≠ 0 → TRUE, "true"/"false" text; other text is #VALUE!. */
export function toBoolean(v: FormulaValue): boolean | Error {
  if (v === null) return false;
  if (typeof v === "boolean") return v;
  if (typeof v === "number") return v !== 0;
  if (typeof v === "string") {
    const s = v.trim().toUpperCase();
    if (s === "TRUE") return true;
    if (s === "FALSE") return false;
    // "" is text, not a truth value (Excel: IF("", …) is #VALUE!); an empty cell is blank, and FALSE.
    return Errors.value;
  }
  if (v instanceof Date) return true;
  if (v instanceof Error) return v;
  return Errors.value;
}

/**
 * Spreadsheet comparison: numbers < text < booleans; text compares case-insensitively; a blank compares as
 * 0, "" or FALSE depending on the other side; dates compare as their serial numbers.
 */
export function compareValues(a: FormulaValue, b: FormulaValue): number | Error {
  if (a instanceof Error) return a;
  if (b instanceof Error) return b;
  if (Array.isArray(a) || Array.isArray(b)) return Errors.value;
  let x: number | string | boolean | null = a instanceof Date ? dateToSerial(a) : a;
  let y: number | string | boolean | null = b instanceof Date ? dateToSerial(b) : b;
  if (x === null && y === null) return 0;
  if (x === null) x = blankLike(y);
  if (y === null) y = blankLike(x);
  const rank = (v: number | string | boolean) => (typeof v === "number" ? 0 : typeof v === "string" ? 1 : 2);
  const rx = rank(x!);
  const ry = rank(y!);
  if (rx !== ry) return rx < ry ? -1 : 1;
  if (typeof x === "string") {
    const l = x.toLowerCase();
    const r = (y as string).toLowerCase();
    return l < r ? -1 : l > r ? 1 : 0;
  }
  // Numbers compare to 15 significant digits, as Excel's `=` does (0.1 + 0.2 = 0.3 is TRUE).
  let l = Number(x);
  let r = Number(y);
  // Only numbers within one part in 10^14 can meet at 15 digits: the rounding (slow) is kept for them.
  if (l !== r && Math.abs(l - r) <= 1e-14 * Math.max(Math.abs(l), Math.abs(r))) {
    l = to15(l);
    r = to15(r);
  }
  return l < r ? -1 : l > r ? 1 : 0;
}

function to15(n: number): number {
  return Number.isFinite(n) ? Number(n.toPrecision(15)) : n;
}

function blankLike(other: number | string | boolean | null): number | string | boolean {
  return typeof other === "string" ? "" : typeof other === "boolean" ? false : 0;
}

/**
 * Normalizes whatever the library returned: NaN and infinities are #NUM!, undefined is blank, text past the
 * spreadsheet limit is #VALUE!, anything that is not a value is #VALUE!.
 */
export function normalizeResult(v: unknown): FormulaValue {
  if (v === null || v === undefined) return null;
  if (typeof v === "number") return Number.isFinite(v) ? (Object.is(v, -0) ? 0 : v) : Errors.num;
  if (typeof v === "string") return v.length > 32_767 ? Errors.value : v;
  if (typeof v === "boolean") return v;
  if (v instanceof Date) return Number.isNaN(v.getTime()) ? Errors.value : v;
  if (v instanceof Error) return v;
  if (Array.isArray(v)) return v.flat(Infinity).map((x) => normalizeResult(x));
  return Errors.value;
}

// ---- cells ------------------------------------------------------------------------------------------------

/** What the evaluator needs to know about a column to read its cells. */
export interface ColumnMeta {
  id: string;
  type: string;
  /** select / multiSelect: item id → label. */
  labels?: Map<string, string>;
  /** A formula column whose results are dates (static inference), so its stored ms read back as dates. */
  yieldsDate?: boolean;
}

/** A stored cell's JSON value → the evaluator's value for that column type. */
export function cellToValue(data: unknown, col: ColumnMeta): FormulaValue {
  if (data === null || data === undefined) return null;
  // An empty text cell is an empty cell (0 in arithmetic); a formula's "" result stays text, as in a spreadsheet.
  if (data === "" && col.type !== "formula") return null;
  if (typeof data === "object" && !Array.isArray(data)) {
    const code = (data as { error?: unknown }).error;
    return typeof code === "string"
      ? formulaError((ERROR_CODES as readonly string[]).includes(code) ? (code as ErrorCode) : "#VALUE!")
      : Errors.value;
  }
  switch (col.type) {
    case "date":
      return typeof data === "number"
        ? new Date(data)
        : typeof data === "string" && data !== ""
          ? parseDateText(data)
          : null;
    case "select":
      return typeof data === "string" ? (col.labels?.get(data) ?? null) : null;
    case "multiSelect":
      return Array.isArray(data)
        ? data.flatMap((id) => (typeof id === "string" && col.labels?.has(id) ? [col.labels.get(id)!] : []))
        : null;
    case "checkbox":
      return typeof data === "boolean" ? data : Boolean(data);
    case "formula":
      if (col.yieldsDate && typeof data === "number") return new Date(data);
      return jsonToValue(data);
    default:
      return jsonToValue(data);
  }
}

function parseDateText(s: string): Date | Error {
  const d = new Date(s);
  return Number.isNaN(d.getTime()) ? Errors.value : d;
}

function jsonToValue(data: unknown): FormulaValue {
  if (typeof data === "number" || typeof data === "string" || typeof data === "boolean") return data;
  if (Array.isArray(data)) return data.map(jsonToValue);
  return null;
}

/** A result → the JSON stored in the cell (dates as ms, errors as `{ error }`, blanks as null). */
export function valueToCell(v: FormulaValue): unknown {
  if (v === null) return null;
  if (v instanceof Date) return v.getTime();
  if (v instanceof Error) return { error: errorCode(v) };
  if (Array.isArray(v)) return v.map(valueToCell);
  return v;
}
