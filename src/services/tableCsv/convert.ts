/**
 * CSV text ⇄ cell values (docs/api-guide.md › CSV import and export). Nothing here touches the database: the
 * import reads a field into the value its column stores, the export writes a stored value back as text, and
 * `inferType` picks a type for a column the import creates from a sample of its values.
 */
import { newId } from "../../lib/ids";
import { cellValueProblem, columnType } from "../tables/cellValues";
import type { ColumnRow } from "../tables/serialize";

/** Types a CSV column may be given (or inferred as) when the import creates its column. */
export const IMPORT_TYPES = ["text", "number", "checkbox", "date", "select", "multiSelect", "url", "email"] as const;
export type ImportType = (typeof IMPORT_TYPES)[number];

export interface SelectItem {
  id: string;
  label: string;
  color: string;
}

const PALETTE = ["#e3f2fd", "#e8f5e9", "#fff3e0", "#fce4ec", "#ede7f6", "#e0f7fa", "#f9fbe7", "#efebe9"];

const TRUE_WORDS = new Set(["true", "yes", "y", "1", "x", "on", "checked"]);
const FALSE_WORDS = new Set(["false", "no", "n", "0", "off", "unchecked"]);
/** Booleans inferred only from words (a column of 0 and 1 is a number column). */
const BOOLEAN_WORDS = new Set(["true", "false", "yes", "no"]);
const NUMBER_RE = /^[+-]?(\d+(\.\d*)?|\.\d+)([eE][+-]?\d+)?$/;
const DATE_RE = /^(\d{4})-(\d{2})-(\d{2})(?:[T ](\d{2}):(\d{2})(?::(\d{2})(\.\d{1,9})?)?(Z|[+-]\d{2}:?\d{2})?)?$/;
const URL_RE = /^https?:\/\/\S+$/i;
const EMAIL_RE = /^[^\s@]+@[^\s@.]+(\.[^\s@.]+)+$/;

/** Most distinct values a column inferred as single select may have. */
const MAX_INFERRED_SELECT_ITEMS = 50;

export function parseNumber(text: string): number | null {
  const t = text.trim();
  if (!NUMBER_RE.test(t)) return null;
  const n = Number(t);
  return Number.isFinite(n) ? n : null;
}

export function parseBoolean(text: string): boolean | null {
  const t = text.trim().toLowerCase();
  if (TRUE_WORDS.has(t)) return true;
  if (FALSE_WORDS.has(t)) return false;
  return null;
}

/** ISO 8601 date or date-time; without an offset it is read as UTC. Milliseconds since the epoch, or null. */
export function parseDate(text: string): number | null {
  const m = DATE_RE.exec(text.trim());
  if (!m) return null;
  const [, y, mo, d, h, mi, s, frac, zone] = m;
  const month = Number(mo);
  const day = Number(d);
  if (month < 1 || month > 12 || day < 1 || day > 31) return null;
  const base = Date.UTC(
    Number(y),
    month - 1,
    day,
    Number(h ?? 0),
    Number(mi ?? 0),
    Number(s ?? 0),
    frac ? Math.floor(Number(frac) * 1000) : 0,
  );
  const check = new Date(base);
  if (check.getUTCDate() !== day || check.getUTCMonth() !== month - 1) return null;
  if (!zone || zone === "Z") return Number.isSafeInteger(base) ? base : null;
  const sign = zone[0] === "-" ? -1 : 1;
  const digits = zone.slice(1).replace(":", "");
  const offset = sign * (Number(digits.slice(0, 2)) * 60 + Number(digits.slice(2, 4))) * 60_000;
  return base - offset;
}

/** A date cell as text: `YYYY-MM-DD` at UTC midnight, else the full ISO form (both read back to the same value). */
export function formatDate(ms: number): string {
  const iso = new Date(ms).toISOString();
  return iso.endsWith("T00:00:00.000Z") ? iso.slice(0, 10) : iso;
}

/** The type a column created by the import gets, from a sample of its non-empty values. */
export function inferType(values: readonly string[]): ImportType {
  const filled = values.map((v) => v.trim()).filter((v) => v !== "");
  if (filled.length === 0) return "text";
  if (filled.every((v) => BOOLEAN_WORDS.has(v.toLowerCase()))) return "checkbox";
  if (filled.every((v) => parseNumber(v) !== null)) return "number";
  if (filled.every((v) => parseDate(v) !== null)) return "date";
  if (filled.every((v) => URL_RE.test(v))) return "url";
  if (filled.every((v) => EMAIL_RE.test(v))) return "email";
  const distinct = new Set(filled);
  // Single select when values repeat: few distinct labels, each used on average at least twice.
  if (
    filled.length >= 4 &&
    distinct.size <= MAX_INFERRED_SELECT_ITEMS &&
    distinct.size * 2 <= filled.length &&
    [...distinct].every((v) => v.length <= 200)
  ) {
    return "select";
  }
  return "text";
}

export function newSelectItem(label: string, index: number): SelectItem {
  return { id: newId(), label, color: PALETTE[index % PALETTE.length]! };
}

/** Splits a multiSelect field: labels separated by commas (or semicolons), trimmed, without repeats. */
export function splitLabels(text: string): string[] {
  return [
    ...new Set(
      text
        .split(/[,;]/)
        .map((s) => s.trim())
        .filter((s) => s !== ""),
    ),
  ];
}

/**
 * A column as the import writes to it: a live column (or one the import will create) with the select items it
 * holds so far. New labels of a select column get items on the way (`added` tells the caller to store them).
 */
export class ImportColumn {
  readonly type: string;
  private byLabel = new Map<string, string>();
  private byFoldedLabel = new Map<string, string>();
  items: SelectItem[];
  added = false;

  constructor(
    public column: ColumnRow,
    readonly header: string,
  ) {
    this.type = columnType(column);
    this.items = [...(((column.data as { selectItems?: SelectItem[] }).selectItems ?? []) as SelectItem[])];
    for (const item of this.items) this.remember(item);
  }

  private remember(item: SelectItem) {
    if (!this.byLabel.has(item.label)) this.byLabel.set(item.label, item.id);
    const folded = item.label.trim().toLowerCase();
    if (!this.byFoldedLabel.has(folded)) this.byFoldedLabel.set(folded, item.id);
  }

  /** The id of the item labelled `label`, adding an item when there is none. */
  itemId(label: string): string {
    const found = this.byLabel.get(label) ?? this.byFoldedLabel.get(label.trim().toLowerCase());
    if (found) return found;
    const item = newSelectItem(label, this.items.length);
    this.items.push(item);
    this.remember(item);
    this.added = true;
    this.column = { ...this.column, data: { ...this.column.data, selectItems: this.items } as ColumnRow["data"] };
    return item.id;
  }

  /** The stored value of `text` (undefined: the cell stays empty), or a problem. */
  read(field: string): { value?: unknown; problem?: string } {
    const text = unescapeFormulaText(field);
    if (text === "") return {};
    switch (this.type) {
      case "identifier":
      case "text":
        return this.checked(text);
      case "number": {
        const n = parseNumber(text);
        return n === null ? { problem: `"${clip(text)}" is not a number` } : { value: n };
      }
      case "checkbox": {
        const b = parseBoolean(text);
        return b === null ? { problem: `"${clip(text)}" is not a boolean (true/false, yes/no, 1/0)` } : { value: b };
      }
      case "date": {
        const d = parseDate(text);
        return d === null
          ? { problem: `"${clip(text)}" is not an ISO 8601 date (YYYY-MM-DD or a date-time)` }
          : { value: d };
      }
      case "select": {
        const label = text.trim();
        if (label === "") return {};
        if (label.length > 500) return { problem: "a select label has at most 500 characters" };
        return { value: this.itemId(label) };
      }
      case "multiSelect": {
        const labels = splitLabels(text);
        if (labels.length === 0) return {};
        if (labels.some((l) => l.length > 500)) return { problem: "a select label has at most 500 characters" };
        return { value: [...new Set(labels.map((l) => this.itemId(l)))] };
      }
      case "url":
      case "email":
        return this.checked(text.trim());
      default:
        return {};
    }
  }

  private checked(value: string): { value?: unknown; problem?: string } {
    const problem = cellValueProblem(this.column, value);
    return problem ? { problem } : { value };
  }
}

function clip(text: string) {
  return text.length > 40 ? `${text.slice(0, 40)}…` : text;
}

/**
 * CSV injection (docs/api-guide.md › CSV import and export): a spreadsheet opening the file runs a field that
 * starts with `=`, `+`, `-`, `@`, a tab or a carriage return as a formula, so the export writes such text with a
 * leading `'` (OWASP's advice) and the import takes that quote off again. Numbers, dates and checkboxes are
 * written from their values and never escaped (`-5` stays a number).
 */
const FORMULA_START = /^[=+\-@\t\r]/;
const ESCAPED_FORMULA_START = /^'[=+\-@\t\r]/;

export function escapeFormulaText(text: string): string {
  return FORMULA_START.test(text) ? `'${text}` : text;
}

export function unescapeFormulaText(text: string): string {
  return ESCAPED_FORMULA_START.test(text) ? text.slice(1) : text;
}

/** Writes stored cell values of one column back as CSV text; text values escaped against CSV injection unless `keepFormulas`. */
export function exportFormatter(
  column: ColumnRow,
  formulaResultType?: string,
  keepFormulas = false,
): (value: unknown) => string {
  const format = valueFormatter(column, formulaResultType);
  if (keepFormulas) return format;
  return (v) => {
    const text = format(v);
    return typeof v === "number" || typeof v === "boolean" ? text : escapeFormulaText(text);
  };
}

function valueFormatter(column: ColumnRow, formulaResultType?: string): (value: unknown) => string {
  const type = columnType(column);
  const labels = new Map(
    ((column.data as { selectItems?: SelectItem[] }).selectItems ?? []).map((i) => [i.id, i.label]),
  );
  const label = (id: unknown) => labels.get(String(id)) ?? String(id);
  switch (type) {
    case "select":
      return (v) => (v === null || v === undefined ? "" : label(v));
    case "multiSelect":
      return (v) => (Array.isArray(v) ? v.map(label).join(", ") : v === null || v === undefined ? "" : label(v));
    case "date":
      return (v) => (typeof v === "number" ? formatDate(v) : plain(v));
    case "oneMany":
      return (v) => (Array.isArray(v) ? v.join(", ") : plain(v));
    case "formula": {
      // A formula cell as its value: a date result is a ms number, an error is { error: "#DIV/0!" }.
      return (v) => (typeof v === "number" && formulaResultType === "date" ? formatDate(v) : plain(v));
    }
    default:
      return plain;
  }
}

function plain(v: unknown): string {
  if (v === null || v === undefined) return "";
  if (typeof v === "string") return v;
  if (typeof v === "number" || typeof v === "boolean") return String(v);
  if (Array.isArray(v)) return v.map(plain).join(", ");
  if (typeof v === "object" && typeof (v as { error?: unknown }).error === "string")
    return (v as { error: string }).error;
  return JSON.stringify(v);
}
