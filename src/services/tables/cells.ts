/** Single cells: upsert with per-type checks (cellValues.ts) and lookup for E15. */
import { and, eq, sql } from "drizzle-orm";
import { cells, columns, rows } from "../../db/schema";
import type { Db, Env } from "../../env";
import { newId, now } from "../../lib/ids";
import { checkCellWrite } from "./cellValues";
import { recalculateFormulasAfterWrite } from "./recompute";
import type { CellRow, ColumnRow, RowRow, TableRow } from "./serialize";

/**
 * Stores `value` in the row's cell of `column` (creating the cell on first write; null clears it), touches the
 * row's updatedAt in the same batch, then runs the formula hook for the row. 409 for a computed column, 400 for
 * a value of the wrong type.
 */
export async function upsertCell(db: Db, env: Env, table: TableRow, row: RowRow, column: ColumnRow, value: unknown): Promise<CellRow> {
  checkCellWrite(column, value);
  const t = now();
  const [[cell]] = await db.batch([
    db
      .insert(cells)
      .values({
        id: newId(),
        tableId: table.id,
        rowId: row.id,
        columnId: column.id,
        workspaceId: table.workspaceId,
        isIdentifier: column.isIdentifier,
        data: value,
        createdAt: t,
        updatedAt: t,
      })
      .onConflictDoUpdate({
        target: [cells.rowId, cells.columnId],
        set: { data: sql`excluded.data`, isIdentifier: column.isIdentifier, isDeleted: false, updatedAt: t },
      })
      .returning(),
    db.update(rows).set({ updatedAt: t }).where(eq(rows.id, row.id)),
  ]);
  await recalculateFormulasAfterWrite(env, table.id, [row.id]);
  return cell!;
}

/**
 * A cell whose row and column are live, with its table id; null otherwise (the caller then checks the table
 * with requireTable, which also covers a deleted table).
 */
export async function findLiveCell(db: Db, cellId: string): Promise<CellRow | null> {
  const [found] = await db
    .select({ cell: cells })
    .from(cells)
    .innerJoin(rows, and(eq(rows.id, cells.rowId), eq(rows.isDeleted, false)))
    .innerJoin(columns, and(eq(columns.id, cells.columnId), eq(columns.isDeleted, false)))
    .where(and(eq(cells.id, cellId), eq(cells.isDeleted, false)));
  return found?.cell ?? null;
}
