/**
 * How a query reads a column (docs/api-guide.md › Querying rows): the kind of value its cells hold decides the
 * operators a filter may use on it. Formula and lookup columns take the kind of their result type.
 */
import type { Expr } from "../../formula/expression";
import { describeFormula } from "../../formula/formulaText";
import { columnType } from "../cellValues";
import { asTableColumn, type ColumnRow } from "../serialize";

export type ValueKind =
  "text" | "number" | "date" | "checkbox" | "select" | "multiSelect" | "oneMany" | "array" | "any";

const TEXT_OPS = ["eq", "neq", "contains", "notContains", "startsWith", "isEmpty", "isNotEmpty"] as const;
const NUMBER_OPS = ["eq", "neq", "lt", "lte", "gt", "gte", "between", "isEmpty", "isNotEmpty"] as const;
const LIST_OPS = ["hasAny", "hasAll", "hasNone", "isEmpty", "isNotEmpty"] as const;

export const OPS_BY_KIND: Record<ValueKind, readonly string[]> = {
  text: TEXT_OPS,
  number: NUMBER_OPS,
  date: NUMBER_OPS,
  checkbox: ["is"],
  select: ["is", "isNot", "isAnyOf", "isNoneOf", "isEmpty", "isNotEmpty"],
  multiSelect: LIST_OPS,
  oneMany: ["hasAny", "isEmpty", "isNotEmpty"],
  array: LIST_OPS,
  any: [...new Set([...TEXT_OPS, ...NUMBER_OPS])],
};

/** The kind of value a column's cells hold; a formula's by its result type over `tableColumns`. */
export function valueKind(column: ColumnRow, tableColumns: readonly ColumnRow[]): ValueKind {
  const type = columnType(column);
  switch (type) {
    case "identifier":
    case "text":
    case "url":
    case "email":
      return "text";
    case "number":
    case "date":
    case "checkbox":
    case "select":
    case "multiSelect":
    case "oneMany":
      return type;
    case "formula":
      return formulaKind(column, tableColumns);
    default:
      return "any";
  }
}

function formulaKind(column: ColumnRow, tableColumns: readonly ColumnRow[]): ValueKind {
  const stored = column.formula as { expression?: Expr } | null;
  if (!stored?.expression) return "any";
  let resultType: string;
  try {
    resultType = describeFormula(stored.expression, tableColumns.map(asTableColumn)).resultType;
  } catch {
    return "any";
  }
  switch (resultType) {
    case "number":
      return "number";
    case "date":
      return "date";
    case "text":
      return "text";
    case "boolean":
      return "checkbox";
    case "array":
      return "array";
    default:
      return "any";
  }
}

/** Select items of a select or multiSelect column. */
export function selectItemsOf(column: ColumnRow): { id: string; label: string }[] {
  return ((column.data as { selectItems?: { id: string; label: string }[] }).selectItems ?? []).slice();
}
