/**
 * The change-log entries of table and column writes (docs/api-guide.md › Changes, history and audit): one
 * `table.*` or `column.*` entry per write, in the write's own batch, guarded in SQL by the write's own WHERE so a
 * write that does not land (If-Match lost to a concurrent write) or changes nothing records nothing.
 */
import { sql, type SQL } from "drizzle-orm";
import { columns, tables } from "../../db/schema";
import type { ChangeSource } from "../../db/schema/changes";
import type { ServiceContext } from "../context";
import { recordEntryQuery } from "../changes/log";
import { diffEntryQuery, type FieldWrite } from "../changes/recordLog";
import type { ColumnRow, TableRow } from "./serialize";

const tablePlace = (t: TableRow) => ({ workspaceId: t.workspaceId, projectId: t.projectId, tableId: t.id });
const columnPlace = (c: ColumnRow) => ({ workspaceId: c.workspaceId, projectId: c.projectId, tableId: c.tableId });

/** After the inserts of a new table and its identifier column: `table.created` and `column.created`. */
export function tableCreatedEntries(
  ctx: ServiceContext,
  table: TableRow,
  identifier: ColumnRow,
  source?: ChangeSource,
) {
  return [
    ...recordEntryQuery(ctx, {
      kind: "table.created",
      recordId: table.id,
      ...tablePlace(table),
      changes: { name: { before: null, after: table.name } },
      exists: sql`EXISTS (SELECT 1 FROM tables WHERE id = ${table.id})`,
      source,
    }),
    ...columnCreatedEntry(ctx, identifier, source),
  ];
}

/** Before the update: `table.updated` with the name before and after, when it changes and `guard` holds. */
export function tableRenamedEntry(ctx: ServiceContext, table: TableRow, name: string, guard: SQL) {
  const fields: FieldWrite[] = [{ field: "name", column: tables.name, after: name }];
  return diffEntryQuery(ctx, {
    kind: "table.updated",
    recordId: table.id,
    place: tablePlace(table),
    table: tables,
    guard,
    fields,
  });
}

/** Before the soft delete: the tombstone `table.deleted`, unless already deleted or `guard` fails. */
export function tableDeletedEntry(ctx: ServiceContext, table: TableRow, guard: SQL) {
  return recordEntryQuery(ctx, {
    kind: "table.deleted",
    recordId: table.id,
    ...tablePlace(table),
    changes: null,
    exists: sql`EXISTS (SELECT 1 FROM ${tables} WHERE ${guard} AND ${tables.isDeleted} = 0)`,
  });
}

/** After the insert: `column.created` with its name, type and description. */
export function columnCreatedEntry(ctx: ServiceContext, column: ColumnRow, source?: ChangeSource) {
  const fields = { name: column.name, type: column.data.type, description: column.description };
  return recordEntryQuery(ctx, {
    kind: "column.created",
    recordId: column.id,
    ...columnPlace(column),
    changes: Object.fromEntries(Object.entries(fields).map(([k, v]) => [k, { before: null, after: v }])),
    exists: sql`EXISTS (SELECT 1 FROM columns WHERE id = ${column.id})`,
    source,
  });
}

/** Before the update: `column.updated` with the fields (name, slug, description, options) it changes. */
export function columnUpdatedEntry(
  ctx: ServiceContext,
  column: ColumnRow,
  set: { name?: string; slug?: string; description?: string; data?: ColumnRow["data"] },
  guard: SQL,
) {
  const fields: FieldWrite[] = [];
  if (set.name !== undefined) fields.push({ field: "name", column: columns.name, after: set.name });
  if (set.slug !== undefined) fields.push({ field: "slug", column: columns.slug, after: set.slug });
  if (set.description !== undefined)
    fields.push({ field: "description", column: columns.description, after: set.description });
  if (set.data !== undefined) fields.push({ field: "data", column: columns.data, after: set.data, json: true });
  return diffEntryQuery(ctx, {
    kind: "column.updated",
    recordId: column.id,
    place: columnPlace(column),
    table: columns,
    guard,
    fields,
  });
}

/** Before the soft delete: the tombstone `column.deleted`, unless already deleted or `guard` fails. */
export function columnDeletedEntry(ctx: ServiceContext, column: ColumnRow, guard: SQL) {
  return recordEntryQuery(ctx, {
    kind: "column.deleted",
    recordId: column.id,
    ...columnPlace(column),
    changes: null,
    exists: sql`EXISTS (SELECT 1 FROM ${columns} WHERE ${guard} AND ${columns.isDeleted} = 0)`,
  });
}

/**
 * Before the formula engine persists a column's formula (E3, a formula column's create or update): `column.updated`
 * with its options (`data`) and `formula` (expression and description) before and after, when they change.
 */
export function formulaAppliedEntry(
  ctx: ServiceContext,
  e: {
    table: { id: string; workspaceId: string; projectId: string };
    columnId: string;
    data: unknown;
    formula: unknown;
  },
) {
  return diffEntryQuery(ctx, {
    kind: "column.updated",
    recordId: e.columnId,
    place: { workspaceId: e.table.workspaceId, projectId: e.table.projectId, tableId: e.table.id },
    table: columns,
    guard: sql`${columns.id} = ${e.columnId}`,
    fields: [
      { field: "data", column: columns.data, after: e.data, json: true },
      { field: "formula", column: columns.formula, after: e.formula, json: true },
    ],
    // The table's formula coordinator applies it, as the system, for the request that asked (as derived cells are).
    by: { actor: { type: "system" }, source: "api" },
  });
}
