/** Database rows → the published records (specification: Column, Row, Cell; Table per API.md §7). */
import type { cells, columns, rows, tables } from "../../db/schema";
import type { ColumnType } from "../../schemas/tables";

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

export function columnDto(c: ColumnRow) {
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
    data: c.data as ColumnRow["data"] & { type: ColumnType },
    ...(c.formula != null && { formula: c.formula }),
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
