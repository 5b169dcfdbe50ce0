/**
 * What a cell may hold, per column type (docs/api-guide.md › Tables, columns, rows, cells). Shared by row create, bulk create and cell upsert, and
 * meant for reuse by the formula engine and export: nothing here touches the database.
 */
import { ApiError, conflict, validation, type ErrorDetail } from "../../errors";
import type { ColumnType } from "../../schemas/tables";
import type { ColumnRow } from "./serialize";

export const MAX_TEXT_LENGTH = 100_000;
export const MAX_URL_LENGTH = 2048;
export const MAX_EMAIL_LENGTH = 320;
/** The range of a JavaScript Date, in ms. */
const MAX_DATE_MS = 8.64e15;
const EMAIL_RE = /^[^\s@]+@[^\s@.]+(\.[^\s@.]+)+$/;

/** Columns whose cells the server computes; a client write to one is 409. */
export const COMPUTED_COLUMN_TYPES: ReadonlySet<string> = new Set<ColumnType>(["oneMany", "formula"]);

export function columnType(column: Pick<ColumnRow, "data">): ColumnType {
  return column.data.type as ColumnType;
}

export function isComputedColumn(column: Pick<ColumnRow, "data">): boolean {
  return COMPUTED_COLUMN_TYPES.has(column.data.type);
}

function selectItemIds(column: Pick<ColumnRow, "data">): Set<string> {
  const items = (column.data as { selectItems?: { id: string }[] }).selectItems ?? [];
  return new Set(items.map((i) => i.id));
}

function isHttpUrl(v: string) {
  try {
    const u = new URL(v);
    return (u.protocol === "http:" || u.protocol === "https:") && u.hostname.length > 0;
  } catch {
    return false;
  }
}

/**
 * Why `value` cannot be stored in a cell of `column`, or null when it can. `null` (clearing the cell) is always
 * storable. Computed columns are not judged here: writing to them is a state conflict (see checkCellWrites).
 */
export function cellValueProblem(column: Pick<ColumnRow, "data">, value: unknown): string | null {
  if (value === null) return null;
  const type = columnType(column);
  switch (type) {
    case "identifier":
    case "text":
      if (typeof value !== "string") return `a ${type} cell holds a string`;
      return value.length > MAX_TEXT_LENGTH ? `at most ${MAX_TEXT_LENGTH} characters` : null;
    case "number":
      return typeof value === "number" && Number.isFinite(value) ? null : "a number cell holds a finite number";
    case "checkbox":
      return typeof value === "boolean" ? null : "a checkbox cell holds a boolean";
    case "date":
      return typeof value === "number" && Number.isSafeInteger(value) && Math.abs(value) <= MAX_DATE_MS
        ? null
        : "a date cell holds a timestamp in ms since the epoch (an integer)";
    case "select": {
      if (typeof value !== "string") return "a select cell holds the id of one of the column's selectItems";
      return selectItemIds(column).has(value) ? null : `${value} is not an item of this select column`;
    }
    case "multiSelect": {
      if (!Array.isArray(value) || value.some((v) => typeof v !== "string"))
        return "a multiSelect cell holds an array of selectItems ids";
      const ids = selectItemIds(column);
      const unknown = value.filter((v) => !ids.has(v as string));
      if (unknown.length) return `not items of this column: ${unknown.slice(0, 5).join(", ")}`;
      return new Set(value).size === value.length ? null : "item ids must not repeat";
    }
    case "url":
      if (typeof value !== "string") return "a url cell holds a string";
      if (value.length > MAX_URL_LENGTH) return `at most ${MAX_URL_LENGTH} characters`;
      return isHttpUrl(value) ? null : "not an absolute http(s) URL";
    case "email":
      if (typeof value !== "string") return "an email cell holds a string";
      return value.length <= MAX_EMAIL_LENGTH && EMAIL_RE.test(value) ? null : "not an e-mail address";
    case "oneMany":
    case "formula":
      return null;
    default:
      return `column type ${String(type)} holds no values`;
  }
}

/** One value a client asked to store, checked and ready to write. `value` is never null (null clears: nothing to store). */
export interface CellWrite {
  column: ColumnRow;
  value: unknown;
}

const MAX_DETAILS = 50;

/**
 * Checks client-supplied `{ [columnId]: value }` maps (one per row) against the table's live columns.
 * 400 ValidationError listing every problem (unknown or deleted column, wrong type), else 409 ConflictError when a
 * value targets a computed column. Returns, per input, the non-null values to store.
 */
export function checkCellWrites(
  columnsById: ReadonlyMap<string, ColumnRow>,
  inputs: readonly (Record<string, unknown> | undefined)[],
  pathOf: (index: number) => string,
): CellWrite[][] {
  const details: ErrorDetail[] = [];
  let computed: string | null = null;
  const out = inputs.map((cells, i) => {
    const writes: CellWrite[] = [];
    for (const [columnId, value] of Object.entries(cells ?? {})) {
      const path = `${pathOf(i)}.${columnId}`;
      const column = columnsById.get(columnId);
      if (!column) {
        if (details.length < MAX_DETAILS) details.push({ path, message: "no such column in this table" });
        continue;
      }
      if (isComputedColumn(column)) {
        computed ??= `${column.name} is a ${columnType(column)} column; its cells are computed and read-only`;
        continue;
      }
      const problem = cellValueProblem(column, value);
      if (problem) {
        if (details.length < MAX_DETAILS) details.push({ path, message: problem });
        continue;
      }
      if (value !== null) writes.push({ column, value });
    }
    return writes;
  });
  if (details.length)
    throw validation(
      `Invalid cell values: ${details
        .slice(0, 3)
        .map((d) => `${d.path}: ${d.message}`)
        .join("; ")}`,
      details,
    );
  if (computed) throw conflict(computed);
  return out;
}

/** The single-cell form of checkCellWrites for PUT /table/row/{rowId}/cell/{columnId}: 409 for computed, else 400. */
export function checkCellWrite(column: ColumnRow, value: unknown): void {
  if (isComputedColumn(column))
    throw conflict(`${column.name} is a ${columnType(column)} column; its cells are computed and read-only`);
  const problem = cellValueProblem(column, value);
  if (problem)
    throw new ApiError("ValidationError", `Invalid cell value: ${problem}`, {
      details: [{ path: "data", message: problem }],
    });
}
