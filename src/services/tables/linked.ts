/**
 * The columns a table's relations link to, for formulas that look into linked rows (docs/api-guide.md ›
 * Formulas, "Lookups and rollups"): read in the same batch as the table's own columns.
 */
import { and, asc, eq, sql, type SQL } from "drizzle-orm";
import { columns } from "../../db/schema";
import type { Db } from "../../env";
import type { LinkedColumns } from "../formula/lookups";
import type { TableColumn } from "../formula/graph";
import { asTableColumn, type ColumnRow } from "./serialize";

/** Live columns of the live tables of the same project that `tableId`'s relations (oneMany columns) link to. */
export function linkedColumnsQuery(db: Db, tableId: string | SQL) {
  return db
    .select()
    .from(columns)
    .where(
      and(
        eq(columns.isDeleted, false),
        sql`${columns.tableId} IN (SELECT json_extract(r.data, '$.oneMany.tableId') FROM columns r
          WHERE r.table_id = ${tableId} AND r.is_deleted = 0 AND json_extract(r.data, '$.type') = 'oneMany')`,
        sql`EXISTS (SELECT 1 FROM tables t WHERE t.id = ${columns.tableId} AND t.is_deleted = 0
          AND t.project_id = (SELECT project_id FROM tables WHERE id = ${tableId}))`,
      ),
    )
    .orderBy(asc(columns.createdAt), asc(columns.id));
}

/** For each live relation among `tableColumns`: the linked table's columns (from linkedColumnsQuery's rows). */
export function linkedColumnsOf(
  tableColumns: readonly Pick<ColumnRow, "id" | "data" | "isDeleted">[],
  linkedRows: readonly ColumnRow[],
): Map<string, TableColumn[]> {
  const byTable = new Map<string, TableColumn[]>();
  for (const c of linkedRows) byTable.set(c.tableId, [...(byTable.get(c.tableId) ?? []), asTableColumn(c)]);
  const out = new Map<string, TableColumn[]>();
  for (const c of tableColumns) {
    const target =
      !c.isDeleted && c.data.type === "oneMany"
        ? (c.data as { oneMany?: { tableId?: string } }).oneMany?.tableId
        : undefined;
    const list = target ? byTable.get(target) : undefined;
    if (list) out.set(c.id, list);
  }
  return out;
}

export type { LinkedColumns };
