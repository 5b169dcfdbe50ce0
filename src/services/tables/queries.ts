/**
 * The tables area's raw statements (docs/architecture.md, "Services and statements"): what Drizzle's builders cannot
 * express, built here and run by the area's services (and by the CSV import's staging, which writes rows the same way).
 * Writes of many rows are a few statements (rows, then cells in chunks under D1's value-size limit), each an
 * INSERT … SELECT over json_each(?) — never a statement per cell — so 1000 rows commit or fail together.
 */
import { statement } from "../../db/d1";
import { jsonArrayChunks } from "../../lib/jsonChunks";
import type { TableRow } from "./serialize";

/** Bytes of cell JSON per INSERT statement; D1 caps one bound value at 2 MB. */
const CELL_CHUNK_BYTES = 1_000_000;

const INSERT_ROWS = `INSERT INTO rows (id, table_id, project_id, workspace_id, owner_id, origin_id, seq, is_deleted, created_at, updated_at)
  SELECT j.value, ?1, ?2, ?3, ?4, ?7, (SELECT COALESCE(MAX(seq), 0) FROM rows WHERE table_id = ?1) + j.key + 1, ?8, ?5, ?5
  FROM json_each(?6) j
  WHERE EXISTS (SELECT 1 FROM tables t WHERE t.id = ?1 AND t.is_deleted = 0)`;

const INSERT_CELLS = `INSERT INTO cells (id, table_id, row_id, column_id, workspace_id, origin_id, is_identifier, data, is_deleted, created_at, updated_at)
  SELECT j.value ->> 0, ?1, j.value ->> 1, j.value ->> 2, ?2, '', j.value ->> 3, j.value -> 4, 0, ?3, ?3
  FROM json_each(?4) j
  WHERE EXISTS (SELECT 1 FROM rows r WHERE r.id = j.value ->> 1)`;

/**
 * The statements inserting the rows `ids` of `table` (in order after its last row, only while the table is live)
 * and their cells (`[cellId, rowId, columnId, isIdentifier, value]` entries, only with their rows), in chunks of
 * JSON under D1's bound-value limit. `stagedAs` inserts them hidden (`is_deleted = 1`) with that origin, as the CSV
 * import stages its rows until its commit.
 */
export function rowInsertStatements(
  d1: D1Database,
  table: { id: string; projectId: string; workspaceId: string },
  ownerId: string,
  t: number,
  ids: readonly string[],
  cells: readonly unknown[][],
  stagedAs?: string,
): D1PreparedStatement[] {
  const rows = statement(
    d1,
    INSERT_ROWS,
    table.id,
    table.projectId,
    table.workspaceId,
    ownerId,
    t,
    JSON.stringify(ids),
    stagedAs ?? "",
    stagedAs ? 1 : 0,
  );
  const cellInserts = jsonArrayChunks(cells, CELL_CHUNK_BYTES).map((chunk) =>
    statement(d1, INSERT_CELLS, table.id, table.workspaceId, t, chunk),
  );
  return [rows, ...cellInserts];
}

/**
 * Undoes a create whose table was deleted before its formulas were computed (the rows were never shown): the
 * statements deleting the rows `rowIds` of `tableId` and their cells.
 */
export function deleteCreatedRowsStatements(d1: D1Database, tableId: string, rowIds: readonly string[]) {
  const ids = JSON.stringify(rowIds);
  return [
    statement(
      d1,
      `DELETE FROM cells WHERE table_id = ?1 AND row_id IN (SELECT value FROM json_each(?2))`,
      tableId,
      ids,
    ),
    statement(d1, `DELETE FROM rows WHERE table_id = ?1 AND id IN (SELECT value FROM json_each(?2))`, tableId, ids),
  ];
}

/*
 * A bulk write of existing rows (docs/api-guide.md › Bulk writes, ./bulk) puts every cell value of every row in a few
 * INSERT … SELECT over json_each(?) … ON CONFLICT statements (never one per cell), chunked under D1's bound-value
 * limit, and one UPDATE of the rows' updatedAt. Each writes only into live rows of the table, so a row deleted
 * meanwhile gets nothing.
 */
const UPSERT_CELLS = `INSERT INTO cells (id, table_id, row_id, column_id, workspace_id, origin_id, is_identifier, data, is_deleted, created_at, updated_at)
  SELECT j.value ->> 0, ?1, j.value ->> 1, j.value ->> 2, ?2, '', j.value ->> 3,
    CASE WHEN j.value ->> 4 IS NULL THEN NULL ELSE j.value -> 4 END, 0, ?3, ?3
  FROM json_each(?4) j
  WHERE EXISTS (SELECT 1 FROM rows r WHERE r.id = j.value ->> 1 AND r.table_id = ?1 AND r.is_deleted = 0)
  ON CONFLICT (row_id, column_id) DO UPDATE SET data = excluded.data, is_identifier = excluded.is_identifier,
    is_deleted = 0, updated_at = excluded.updated_at`;

/**
 * The same upsert taking its cells from a staged change-log row (../changes/staged.ts) that holds them, id ?4. The
 * staging statement, earlier in the same batch, kept only the cells of live rows of the table: they are not looked up
 * again.
 */
const UPSERT_STAGED_CELLS = UPSERT_CELLS.replace(
  "json_each(?4)",
  "json_each((SELECT cells FROM change_log_staged WHERE id = ?4))",
).replace(
  "WHERE EXISTS (SELECT 1 FROM rows r WHERE r.id = j.value ->> 1 AND r.table_id = ?1 AND r.is_deleted = 0)",
  "WHERE true",
);

const TOUCH_ROWS = `UPDATE rows SET updated_at = ?2 WHERE table_id = ?1 AND is_deleted = 0 AND id IN (SELECT value FROM json_each(?3))`;

/** One value to store: `[newCellId, rowId, columnId, isIdentifier (0|1), value]` (a null value clears the cell). */
export type CellEntry = [string, string, string, number, unknown];

/** The upserts of `entries` into live rows of `table`, in chunks. */
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

/** The upsert of the cells the staged change-log row `stagedId` holds (written before it in the same batch). */
export function cellUpsertFromStagedStatement(
  d1: D1Database,
  table: Pick<TableRow, "id" | "workspaceId">,
  t: number,
  stagedId: string,
): D1PreparedStatement {
  return statement(d1, UPSERT_STAGED_CELLS, table.id, table.workspaceId, t, stagedId);
}

/** Sets the live rows `rowIds`' updatedAt to `t`. */
export function touchRowsStatement(d1: D1Database, tableId: string, t: number, rowIds: readonly string[]) {
  return statement(d1, TOUCH_ROWS, tableId, t, JSON.stringify(rowIds));
}

/**
 * The all-or-nothing guard of a bulk write, right AFTER the statement that updates its rows (touchRowsStatement,
 * setDeletedStatement): it aborts the whole batch (rolling back what ran before it) unless that statement changed
 * exactly `count` rows (SQLite's changes(): the rows of the table it found in the state the write expects) and the
 * table is live. A delete (of a row or the table) that committed between the read and the write makes the bulk write
 * a 404, never a partial one. json() of a non-JSON text (./bulk/common.ts commitBatch) is SQLite's way of raising an
 * error from a plain statement.
 */
export function guardStatement(d1: D1Database, tableId: string, count: number): D1PreparedStatement {
  return statement(
    d1,
    `SELECT json(CASE WHEN changes() = ?2 AND EXISTS (SELECT 1 FROM tables WHERE id = ?1 AND is_deleted = 0)
        THEN '1' ELSE 'stale' END) AS ok`,
    tableId,
    count,
  );
}

/** Soft-deletes (`deleted`) or restores the rows `rowIds` of the table that are in the other state. */
export function setDeletedStatement(
  d1: D1Database,
  tableId: string,
  rowIds: readonly string[],
  deleted: boolean,
  t: number,
) {
  return statement(
    d1,
    `UPDATE rows SET is_deleted = ?2, updated_at = ?3
      WHERE table_id = ?1 AND is_deleted = ?4 AND id IN (SELECT value FROM json_each(?5))`,
    tableId,
    deleted ? 1 : 0,
    t,
    deleted ? 0 : 1,
    JSON.stringify(rowIds),
  );
}
