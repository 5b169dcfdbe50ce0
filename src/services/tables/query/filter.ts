/**
 * A row filter (docs/api-guide.md › Querying rows) checked against the table's columns and compiled to SQL over
 * the cells table in one pass. Every condition becomes `"rows"."id" [NOT] IN (cells of the column whose value
 * matches)`, which D1 answers from the `cells_column_value_idx` expression index (column, stored value, row).
 * Problems are collected with their paths (`filter.and.1.value`) and answered together as 422.
 */
import { sql, type SQL } from "drizzle-orm";
import type { ErrorDetail } from "../../../errors";
import type { ColumnRow } from "../serialize";
import { OPS_BY_KIND, selectItemsOf, valueKind, type ValueKind } from "./columnKinds";
import { colLiteral, dateRange, likePattern, nonEmptySql, VALUE } from "./sqlParts";
import { oneManyCondition } from "./oneMany";

export const MAX_FILTER_DEPTH = 5;
export const MAX_FILTER_CONDITIONS = 50;

export interface FilterScope {
  columnsById: ReadonlyMap<string, ColumnRow>;
  columns: readonly ColumnRow[];
  now: number;
  details: ErrorDetail[];
  conditions: number;
  /** Unsorted queries: walk rows in listing order rather than look each match up (see inCells). */
  scanInOrder?: boolean;
  /** Conditions on columns that no longer exist are dropped and reported here instead (a saved view's). */
  dropDeleted?: { columnId: string; message: string }[];
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);

function problem(scope: FilterScope, path: string, message: string): null {
  if (scope.details.length < 50) scope.details.push({ path, message });
  return null;
}

/** The SQL of a filter tree (null: matches every row), with problems added to `scope.details`. */
export function compileFilter(node: unknown, path: string, scope: FilterScope, depth = 1): SQL | null {
  if (!isObject(node)) return problem(scope, path, "a filter node is { and: [...] }, { or: [...] } or a condition");
  if ("and" in node || "or" in node) return compileGroup(node, path, scope, depth);
  return compileCondition(node, path, scope);
}

function compileGroup(node: Record<string, unknown>, path: string, scope: FilterScope, depth: number): SQL | null {
  const keys = Object.keys(node);
  if (keys.length !== 1) return problem(scope, path, "a group has exactly one member, and or or");
  const conj = keys[0] as "and" | "or";
  const list = node[conj];
  if (!Array.isArray(list)) return problem(scope, `${path}.${conj}`, "a group's member is an array of nodes");
  if (depth > MAX_FILTER_DEPTH)
    return problem(scope, `${path}.${conj}`, `filters nest at most ${MAX_FILTER_DEPTH} groups deep`);
  const parts: SQL[] = [];
  list.forEach((child, i) => {
    const compiled = compileFilter(child, `${path}.${conj}.${i}`, scope, depth + 1);
    if (compiled) parts.push(compiled);
  });
  if (parts.length === 0) return null;
  return sql`(${sql.join(parts, sql.raw(conj === "and" ? " AND " : " OR "))})`;
}

function compileCondition(node: Record<string, unknown>, path: string, scope: FilterScope): SQL | null {
  scope.conditions++;
  if (scope.conditions === MAX_FILTER_CONDITIONS + 1)
    problem(scope, path, `a filter holds at most ${MAX_FILTER_CONDITIONS} conditions`);
  for (const k of Object.keys(node))
    if (k !== "columnId" && k !== "op" && k !== "value") problem(scope, `${path}.${k}`, "unknown member");
  const { columnId, op, value } = node;
  if (typeof columnId !== "string") return problem(scope, `${path}.columnId`, "a column id (string)");
  const column = scope.columnsById.get(columnId);
  if (!column) {
    if (scope.dropDeleted) {
      scope.dropDeleted.push({ columnId, message: "the column was deleted; this condition is ignored" });
      return null;
    }
    return problem(scope, `${path}.columnId`, "no such column in this table");
  }
  const kind = valueKind(column, scope.columns);
  const ops = OPS_BY_KIND[kind];
  if (typeof op !== "string" || !ops.includes(op))
    return problem(scope, `${path}.op`, `operators for this column: ${ops.join(", ")}`);
  return conditionSql({ column, kind, op, value, path: `${path}.value`, scope });
}

interface Cond {
  column: ColumnRow;
  kind: ValueKind;
  op: string;
  value: unknown;
  path: string;
  scope: FilterScope;
}

/** Row ids of the column's live cells whose value satisfies `pred` (over VALUE). */
export function cellsWhere(column: ColumnRow, pred: SQL): SQL {
  return sql`SELECT c.row_id FROM cells c WHERE c.column_id = ${colLiteral(column.id)} AND c.is_deleted = 0 AND ${pred}`;
}

/**
 * `IN` drives the query from the matching cells (one row lookup each: best when few match, and for sorted queries,
 * which read every match anyway); `+id IN` (scope.scanInOrder) walks the rows in listing order testing each against
 * the matches, stopping at the page: bounded by the table's size however many match.
 */
const inCells = (c: { column: ColumnRow; scope: FilterScope }, pred: SQL) =>
  c.scope.scanInOrder
    ? sql`+"rows"."id" IN (${cellsWhere(c.column, pred)})`
    : sql`"rows"."id" IN (${cellsWhere(c.column, pred)})`;
const notInCells = (column: ColumnRow, pred: SQL) => sql`"rows"."id" NOT IN (${cellsWhere(column, pred)})`;

function conditionSql(c: Cond): SQL | null {
  const { column, op } = c;
  if (op === "isEmpty") return c.kind === "oneMany" ? oneManyCondition(c, false) : notInCells(column, nonEmptySql);
  if (op === "isNotEmpty") return c.kind === "oneMany" ? oneManyCondition(c, true) : inCells(c, nonEmptySql);
  switch (c.kind) {
    case "checkbox":
      if (typeof c.value !== "boolean") return problem(c.scope, c.path, "true or false");
      return c.value ? inCells(c, sql`${VALUE} = 1`) : notInCells(column, sql`${VALUE} = 1`);
    case "select":
      return selectCondition(c);
    case "multiSelect":
    case "array":
      return listCondition(c);
    case "oneMany":
      return oneManyCondition(c, null);
    default:
      return scalarCondition(c);
  }
}

function scalarCondition(c: Cond): SQL | null {
  const { column, op, value } = c;
  if (op === "contains" || op === "notContains" || op === "startsWith") {
    if (typeof value !== "string" || value.length === 0) return problem(c.scope, c.path, "a non-empty string");
    const pattern = op === "startsWith" ? `${likePattern(value)}%` : `%${likePattern(value)}%`;
    const pred = sql`${VALUE} LIKE ${pattern} ESCAPE '\\'`;
    return op === "notContains" ? notInCells(column, pred) : inCells(c, pred);
  }
  const numeric = c.kind === "number" || c.kind === "date" || typeof value === "number";
  if (op === "between") {
    const range = Array.isArray(value) && value.length === 2 ? value.map((v) => operand(c, v, "lo")) : null;
    if (!range || range.some((r) => r === null)) return problem(c.scope, c.path, "[low, high]");
    const [lo, hi] = range as [Operand, Operand];
    return inCells(c, sql`${numericGuard(numeric)}${VALUE} BETWEEN ${lo.lo} AND ${hi.hi}`);
  }
  const v = operand(c, value, "lo");
  if (!v) return null;
  switch (op) {
    case "eq":
      return inCells(c, v.lo === v.hi ? sql`${VALUE} = ${v.lo}` : sql`${VALUE} BETWEEN ${v.lo} AND ${v.hi}`);
    case "neq":
      return notInCells(column, v.lo === v.hi ? sql`${VALUE} = ${v.lo}` : sql`${VALUE} BETWEEN ${v.lo} AND ${v.hi}`);
    case "lt":
      return inCells(c, sql`${numericGuard(numeric)}${VALUE} < ${v.lo}`);
    case "lte":
      return inCells(c, sql`${numericGuard(numeric)}${VALUE} <= ${v.hi}`);
    case "gt":
      return inCells(c, sql`${numericGuard(numeric)}${VALUE} > ${v.hi}`);
    default:
      return inCells(c, sql`${numericGuard(numeric)}${VALUE} >= ${v.lo}`);
  }
}

const numericGuard = (numeric: boolean) => (numeric ? sql`typeof(${VALUE}) IN ('integer', 'real') AND ` : sql``);

/** A comparison operand: a number, a string, or (dates) a relative day as the range it covers. */
type Operand = { lo: number | string; hi: number | string };

function operand(c: Cond, value: unknown, _side: "lo"): Operand | null {
  if (c.kind === "date" && isObject(value)) {
    const range = dateRange(value, c.scope.now);
    if (typeof range === "string") return problem(c.scope, c.path, range);
    return range;
  }
  if (c.kind === "number" || c.kind === "date") {
    if (typeof value !== "number" || !Number.isFinite(value))
      return problem(c.scope, c.path, c.kind === "date" ? "ms since the epoch, or { relative, days? }" : "a number");
    return { lo: value, hi: value };
  }
  if (c.kind === "text") {
    if (typeof value !== "string") return problem(c.scope, c.path, "a string");
    return { lo: value, hi: value };
  }
  if ((typeof value === "number" && Number.isFinite(value)) || typeof value === "string")
    return { lo: value, hi: value };
  return problem(c.scope, c.path, "a number or a string");
}

/** Select item ids from ids or labels; problems for unknown ones. */
function itemIds(c: Cond, values: unknown[], path: (i: number) => string): string[] | null {
  const items = selectItemsOf(c.column);
  const out: string[] = [];
  let ok = true;
  values.forEach((v, i) => {
    const item = typeof v === "string" ? (items.find((x) => x.id === v) ?? items.find((x) => x.label === v)) : null;
    if (item) out.push(item.id);
    else ok = !!problem(c.scope, path(i), "not an item (id or label) of this column");
  });
  return ok ? out : null;
}

function selectCondition(c: Cond): SQL | null {
  const many = c.op === "isAnyOf" || c.op === "isNoneOf";
  if (many && (!Array.isArray(c.value) || c.value.length === 0 || c.value.length > 1000))
    return problem(c.scope, c.path, "an array of item ids or labels");
  const ids = itemIds(c, many ? (c.value as unknown[]) : [c.value], (i) => (many ? `${c.path}.${i}` : c.path));
  if (!ids) return null;
  const pred = sql`${VALUE} IN (SELECT value FROM json_each(${JSON.stringify(ids)}))`;
  return c.op === "is" || c.op === "isAnyOf" ? inCells(c, pred) : notInCells(c.column, pred);
}

function listCondition(c: Cond): SQL | null {
  if (!Array.isArray(c.value) || c.value.length === 0 || c.value.length > 1000)
    return problem(c.scope, c.path, "a non-empty array");
  let ids: unknown[] | null = c.value;
  if (c.kind === "multiSelect") ids = itemIds(c, c.value, (i) => `${c.path}.${i}`);
  else if (c.value.some((v) => typeof v !== "string" && typeof v !== "number"))
    return problem(c.scope, c.path, "an array of strings or numbers");
  if (!ids) return null;
  const hasAny = (list: unknown[]) =>
    sql`"rows"."id" IN (SELECT c.row_id FROM cells c, json_each(c.data) j WHERE c.column_id = ${colLiteral(c.column.id)}
      AND c.is_deleted = 0 AND json_valid(c.data) AND j.value IN (SELECT value FROM json_each(${JSON.stringify(list)})))`;
  if (c.op === "hasAny") return hasAny(ids);
  if (c.op === "hasNone") return sql`NOT (${hasAny(ids)})`;
  return sql`(${sql.join(
    ids.map((id) => hasAny([id])),
    sql.raw(" AND "),
  )})`;
}
