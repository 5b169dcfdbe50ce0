/**
 * The CSV import's raw statements (docs/architecture.md, "Services and statements"): staging's commit and undo
 * (./stage) and the sweep of abandoned imports (./sweep), built here and run by those services. The rows themselves
 * are written by the tables area's statements (../tables/queries.ts rowInsertStatements).
 */
import { statement } from "../../db/d1";
import { writableHereSql } from "../context";
import { NEXT_SEQ } from "../changes/staged";

/** A condition of the caller's (idempotency's claim, services/idempotency.ts claimLease) with its parameters. */
type Held = { sql: string; params: readonly unknown[] } | null;

/** Stores a column's data (its new select items) while the column is live. */
export function storeItemsStatement(d1: D1Database, columnId: string, data: string, t: number) {
  return statement(
    d1,
    `UPDATE columns SET data = ?2, updated_at = ?3 WHERE id = ?1 AND is_deleted = 0`,
    columnId,
    data,
    t,
  );
}

/** Every staged row live, only while the table is and every row this import staged is still there (?4 of them). */
const SHOW_ROWS = `UPDATE rows SET is_deleted = 0, origin_id = '', updated_at = ?3
  WHERE table_id = ?1 AND origin_id = ?2 AND is_deleted = 1 AND EXISTS (SELECT 1 FROM tables t WHERE t.id = ?1 AND t.is_deleted = 0)
    AND (SELECT COUNT(*) FROM rows s WHERE s.table_id = ?1 AND s.is_deleted = 1 AND s.origin_id = ?2) = ?4`;

/** Makes the `total` rows staged under `marker` live, only while `held` (the request's claim) holds too. */
export function showRowsStatement(
  d1: D1Database,
  tableId: string,
  marker: string,
  t: number,
  total: number,
  held: Held,
) {
  return statement(
    d1,
    held ? `${SHOW_ROWS} AND ${held.sql}` : SHOW_ROWS,
    tableId,
    marker,
    t,
    total,
    ...(held?.params ?? []),
  );
}

/**
 * Before SHOW_ROWS, on its conditions (params as SHOW_ROWS's, then the actor; `held`'s after them): a `row.created`
 * entry with source `import` for each staged row, its cells as `after` (docs/api-guide.md › Changes, history and audit).
 */
const STAGED_ROWS_CREATED = `INSERT INTO change_log (seq, record_id, at, kind, organization_id, workspace_id, project_id, table_id, actor, source, changes)
  SELECT ${NEXT_SEQ} + row_number() OVER (ORDER BY r.id), r.id, ?3, 'row.created',
    (SELECT organization_id FROM workspaces WHERE id = t.workspace_id), t.workspace_id, t.project_id, ?1, ?5, 'import',
    (SELECT json_group_object(c.column_id, json_object('before', NULL, 'after', json(c.data)))
      FROM cells c WHERE c.row_id = r.id AND c.is_deleted = 0 AND c.data IS NOT NULL)
  FROM rows r JOIN tables t ON t.id = r.table_id
  WHERE r.table_id = ?1 AND r.origin_id = ?2 AND r.is_deleted = 1 AND t.is_deleted = 0
    AND (SELECT COUNT(*) FROM rows s WHERE s.table_id = ?1 AND s.is_deleted = 1 AND s.origin_id = ?2) = ?4`;

/** The change-log entries of the rows `showRowsStatement` makes live, by `actor` (JSON), in the same batch before it. */
export function stagedRowsCreatedStatement(
  d1: D1Database,
  p: { tableId: string; marker: string; t: number; total: number; actor: string; held: Held },
) {
  const { held } = p;
  const text = held ? `${STAGED_ROWS_CREATED} AND ${held.sql}` : STAGED_ROWS_CREATED;
  return statement(d1, text, p.tableId, p.marker, p.t, p.total, p.actor, ...(held?.params ?? []));
}

/** The kept answer's condition (params: table id, marker, table id): the rows went live (none is left staged) in a live table. */
export const COMMITTED = `NOT EXISTS (SELECT 1 FROM rows WHERE table_id = ? AND is_deleted = 1 AND origin_id = ?) AND EXISTS (SELECT 1 FROM tables WHERE id = ? AND is_deleted = 0)`;

/** Why a commit showed nothing: whether the table is live, and whether `held` still holds. */
export function liveAndHeldStatement(d1: D1Database, tableId: string, held: Held) {
  return statement(
    d1,
    `SELECT EXISTS (SELECT 1 FROM tables WHERE id = ? AND is_deleted = 0) AS live, ${held ? held.sql : "1"} AS held`,
    tableId,
    ...(held?.params ?? []),
  );
}

const STAGED = `SELECT id FROM rows WHERE table_id = ?1 AND origin_id = ?2 AND is_deleted = 1 ORDER BY id LIMIT ?3`;

/** Deletes up to `limit` rows staged under `marker`, with their cells (the rows' statement second). */
export function deleteStagedStatements(d1: D1Database, tableId: string, marker: string, limit: number) {
  return [
    statement(d1, `DELETE FROM cells WHERE table_id = ?1 AND row_id IN (${STAGED})`, tableId, marker, limit),
    statement(d1, `DELETE FROM rows WHERE id IN (${STAGED})`, tableId, marker, limit),
  ];
}

/** The columns an import created: never answered for, so removed with its rows. */
/**
 * Before deleteCreatedColumnsStatement: a `column.deleted` tombstone (source `import`, by the actor ?2 as JSON, at
 * ?3) for each of the columns ?1 still live, so the feed that saw them created sees them go.
 */
const CREATED_COLUMNS_DELETED = `INSERT INTO change_log (seq, record_id, at, kind, organization_id, workspace_id, project_id, table_id, actor, source, changes)
  SELECT ${NEXT_SEQ} + row_number() OVER (ORDER BY c.id), c.id, ?3, 'column.deleted',
    (SELECT organization_id FROM workspaces WHERE id = c.workspace_id), c.workspace_id, c.project_id, c.table_id, ?2, 'import', NULL
  FROM columns c WHERE c.id IN (SELECT value FROM json_each(?1)) AND c.is_deleted = 0`;

export function createdColumnsDeletedStatement(d1: D1Database, columnIds: readonly string[], actor: string, t: number) {
  return statement(d1, CREATED_COLUMNS_DELETED, JSON.stringify(columnIds), actor, t);
}

export function deleteCreatedColumnsStatement(d1: D1Database, columnIds: readonly string[]) {
  return statement(d1, `DELETE FROM columns WHERE id IN (SELECT value FROM json_each(?1))`, JSON.stringify(columnIds));
}

// The literal LIKE pattern is the partial index's own condition (rows_staged_idx), so the planner uses it.
const STALE_ROWS = `SELECT id FROM rows WHERE is_deleted = 1 AND origin_id LIKE 'csv-import:%' AND created_at <= ?1
  AND ${writableHereSql("rows.workspace_id")} ORDER BY created_at LIMIT ?2`;

/** The sweep's step: deletes up to `limit` rows staged before `cutoff` by imports that never finished, with their cells. */
export function sweepStaleStatements(d1: D1Database, cutoff: number, limit: number) {
  return [
    statement(d1, `DELETE FROM cells WHERE row_id IN (${STALE_ROWS})`, cutoff, limit),
    statement(d1, `DELETE FROM rows WHERE id IN (${STALE_ROWS})`, cutoff, limit),
  ];
}
