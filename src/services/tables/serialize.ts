/** Database rows → the published records (specification: Column, Row, Cell; Table per docs/api-guide.md › Tables, columns, rows, cells). */
import type { cells, columns, rows, tables } from "../../db/schema";
import type { ColumnType } from "../../schemas/tables";
import type { DescriptionItem, Expr } from "../formula/expression";
import { describeFormula } from "../formula/formulaText";
import type { TableColumn } from "../formula/graph";
import type { ResultType } from "../formula/resultType";
import type { LinkedColumns } from "../formula/lookups";

export type TableRow = typeof tables.$inferSelect;
export type ColumnRow = typeof columns.$inferSelect;
export type RowRow = typeof rows.$inferSelect;
export type CellRow = typeof cells.$inferSelect;

export function tableDto(t: TableRow) {
  return {
    _id: t.id,
    projectId: t.projectId,
    workspaceId: t.workspaceId,
    documentId: t.documentId ?? null,
    userId: t.userId,
    name: t.name,
    createdAt: t.createdAt,
    updatedAt: t.updatedAt,
    isDeleted: t.isDeleted,
  };
}

/** A column row as the formula engine sees it. */
export function asTableColumn(c: ColumnRow): TableColumn {
  return {
    id: c.id,
    name: c.name,
    type: c.data.type,
    isIdentifier: c.isIdentifier,
    isDeleted: c.isDeleted,
    data: c.data,
    formula: (c.formula as TableColumn["formula"]) ?? null,
  };
}

export interface ColumnFormulaDto {
  text: string;
  expression: Expr;
  description: DescriptionItem[];
  resultType: ResultType;
}

/**
 * A column record. A formula column's formula comes with its canonical text and result type, printed with the
 * current names of `tableColumns` (its table's columns; the column itself when not given) so a rename shows.
 */
export function columnDto(c: ColumnRow, tableColumns?: readonly ColumnRow[], linked?: LinkedColumns) {
  const stored = c.formula as { expression?: Expr; description?: DescriptionItem[] } | null;
  let formula: ColumnFormulaDto | undefined;
  if (stored?.expression) {
    const columns = (tableColumns ?? [c]).map(asTableColumn);
    const described = describeFormula(stored.expression, columns, linked);
    formula = {
      text: described.text,
      expression: stored.expression,
      description: stored.description ?? described.description,
      resultType: described.resultType,
    };
  }
  const data = c.data as ColumnRow["data"] & { type: ColumnType };
  return {
    _id: c.id,
    projectId: c.projectId,
    tableId: c.tableId,
    workspaceId: c.workspaceId,
    name: c.name,
    slug: c.slug,
    originId: c.originId,
    description: c.description,
    isIdentifier: c.isIdentifier,
    data: (formula && data.type === "formula"
      ? { ...data, formula: { text: formula.text, expression: formula.expression, resultType: formula.resultType } }
      : data) as ColumnRow["data"] & { type: ColumnType },
    ...(formula && { formula }),
    createdAt: c.createdAt,
    updatedAt: c.updatedAt,
    isDeleted: c.isDeleted,
  };
}

/** `seq` is internal (the paging order), so it is not part of the record. */
export function rowDto(r: Omit<RowRow, "seq"> & { seq?: number }) {
  return {
    _id: r.id,
    projectId: r.projectId,
    tableId: r.tableId,
    workspaceId: r.workspaceId,
    ownerId: r.ownerId,
    originId: r.originId,
    createdAt: r.createdAt,
    updatedAt: r.updatedAt,
    isDeleted: r.isDeleted,
  };
}

export function cellDto(c: CellRow) {
  return {
    _id: c.id,
    tableId: c.tableId,
    rowId: c.rowId,
    columnId: c.columnId,
    workspaceId: c.workspaceId,
    originId: c.originId,
    isIdentifier: c.isIdentifier,
    data: c.data ?? null,
    createdAt: c.createdAt,
    updatedAt: c.updatedAt,
    isDeleted: c.isDeleted,
  };
}
