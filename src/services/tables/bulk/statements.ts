/**
 * The statements a bulk write of existing rows puts in its one D1 batch (docs/api-guide.md › Bulk writes): every
 * cell value of every row in a few INSERT … SELECT over json_each(?) … ON CONFLICT statements (never one per cell),
 * chunked under D1's bound-value limit, and one UPDATE of the rows' updatedAt. Each writes only into live rows of
 * the table, so a row deleted meanwhile gets nothing.
 */
import { statement } from "../../../db/d1";
import { jsonArrayChunks } from "../../../lib/jsonChunks";
import type { TableRow } from "../serialize";

/** Bytes of cell JSON per statement; D1 caps one bound value at 2 MB. */
const CELL_CHUNK_BYTES = 1_000_000;

const UPSERT_CELLS = `INSERT INTO cells (id, table_id, row_id, column_id, workspace_id, origin_id, is_identifier, data, is_deleted, created_at, updated_at)
  SELECT j.value ->> 0, ?1, j.value ->> 1, j.value ->> 2, ?2, '', j.value ->> 3,
    CASE WHEN j.value ->> 4 IS NULL THEN NULL ELSE j.value -> 4 END, 0, ?3, ?3
  FROM json_each(?4) j
  WHERE EXISTS (SELECT 1 FROM rows r WHERE r.id = j.value ->> 1 AND r.table_id = ?1 AND r.is_deleted = 0)
  ON CONFLICT (row_id, column_id) DO UPDATE SET data = excluded.data, is_identifier = excluded.is_identifier,
    is_deleted = 0, updated_at = excluded.updated_at`;

const TOUCH_ROWS = `UPDATE rows SET updated_at = ?2 WHERE table_id = ?1 AND is_deleted = 0 AND id IN (SELECT value FROM json_each(?3))`;

/** One value to store: `[newCellId, rowId, columnId, isIdentifier (0|1), value]` (a null value clears the cell). */
export type CellEntry = [string, string, string, number, unknown];

export function cellUpsertStatements(
  d1: D1Database,
  table: Pick<TableRow, "id" | "workspaceId">,
  t: number,
  entries: readonly CellEntry[],
): D1PreparedStatement[] {
  return jsonArrayChunks(entries, CELL_CHUNK_BYTES).map((chunk) =>
    statement(d1, UPSERT_CELLS, table.id, table.workspaceId, t, chunk),
  );
}

export function touchRowsStatement(d1: D1Database, tableId: string, t: number, rowIds: readonly string[]) {
  return statement(d1, TOUCH_ROWS, tableId, t, JSON.stringify(rowIds));
}
