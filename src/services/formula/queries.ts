/**
 * The formula engine's raw statements (docs/architecture.md, "Services and statements"): the table with its columns
 * and linked tables (./store loadTable), the linked rows lookups read, and cells written with one json_each upsert per
 * few thousand cells (D1 allows 100 bound parameters per statement, so values travel as one JSON parameter), all
 * run in one atomic batch by the engine.
 */
import { newId } from "../../lib/ids";
import { statement } from "../../db/d1";
import type { IdIssuer } from "../context";
import type { StoredFormula } from "./expression";

const COLUMN_FIELDS = "id, table_id, name, is_identifier, is_deleted, data, formula";

/** Tables linked to by ?1's relations: live, and in ?1's project. */
const LINKED_COLUMNS = `SELECT ${COLUMN_FIELDS} FROM columns WHERE is_deleted = 0 AND table_id IN (
    SELECT json_extract(r.data, '$.oneMany.tableId') FROM columns r WHERE r.table_id = ?1 AND r.is_deleted = 0 AND json_extract(r.data, '$.type') = 'oneMany')
  AND EXISTS (SELECT 1 FROM tables t WHERE t.id = columns.table_id AND t.is_deleted = 0 AND t.project_id = (SELECT project_id FROM tables WHERE id = ?1))
  ORDER BY created_at, id`;

/**
 * Tables with a relation to ?1 and a formula calling LOOKUP (the engine tells relation lookups from Excel's).
 * Asked on every row write: the relations linking to ?1 are found on the columns_link_target_idx index
 * (migrations/shard/0000), whose WHERE terms the subquery repeats so the planner can use it.
 */
export const DEPENDENT_TABLES = `SELECT DISTINCT f.table_id FROM columns f WHERE f.is_deleted = 0 AND f.formula LIKE '%"lookup"%' AND f.table_id != ?1
  AND f.table_id IN (SELECT r.table_id FROM columns r WHERE r.is_deleted = 0 AND json_extract(r.data, '$.type') = 'oneMany' AND json_extract(r.data, '$.oneMany.tableId') = ?1)`;

/**
 * Marks the table busy until `until` (tables.formula_busy_until), in the batch of a computation's first read: a write
 * committed after it goes through the coordinator (src/services/tables/recompute.ts), so it waits for the computation.
 */
export function markBusyStatement(d1: D1Database, tableId: string, until: number) {
  return statement(
    d1,
    "UPDATE tables SET formula_busy_until = max(formula_busy_until, ?2) WHERE id = ?1",
    tableId,
    until,
  );
}

/** The table, its columns, its relations' linked columns and the tables that look into it (./store loadTable). */
export function tableLoadStatements(d1: D1Database, tableId: string) {
  return [
    statement(d1, "SELECT id, workspace_id, project_id, is_deleted FROM tables WHERE id = ?", tableId),
    statement(d1, `SELECT ${COLUMN_FIELDS} FROM columns WHERE table_id = ? ORDER BY created_at, id`, tableId),
    statement(d1, LINKED_COLUMNS, tableId),
    statement(d1, DEPENDENT_TABLES, tableId),
  ];
}

/** A linked table's live rows in listing order (seq, id) with the raw values of `columnIds`, as a JSON object per row. */
export function linkedRowsStatement(d1: D1Database, tableId: string, columnIds: readonly string[]) {
  return statement(
    d1,
    `SELECT r.id, (SELECT json_group_object(c.column_id, json(c.data)) FROM cells c WHERE c.row_id = r.id AND c.is_deleted = 0
      AND c.data IS NOT NULL AND c.column_id IN (SELECT value FROM json_each(?2))) AS cells FROM rows r WHERE r.table_id = ?1 AND r.is_deleted = 0 ORDER BY r.seq, r.id`,
    tableId,
    JSON.stringify(columnIds),
  );
}

/** One cell to store: `data` is the JSON text of the value, or null for blank. */
export interface CellUpsert {
  rowId: string;
  columnId: string;
  data: string | null;
}

/**
 * Cell writes, one column per statement, each cell travelling as [rowId, data] in one JSON parameter.
 * Only real changes are written: an upsert whose conflict branch fires only when the stored text differs
 * (or the cell was soft-deleted), and for blanks an update of existing non-blank cells (a missing cell is
 * already blank, so none is created). So a statement's `changes` (or its RETURNING rows) are exactly the
 * cells that changed, without reading the old values first.
 *
 * New cells get ULID-shaped ids without per-cell work in JS: a per-statement prefix (the current time and
 * 50 random bits, 20 characters), the element's index in 6 digits (digits are Crockford base-32 too) and the
 * table's logical shard in two (?8), so they carry their organization's shard like every other id inside it.
 */
const upsertSql = (
  returning: boolean,
) => `INSERT INTO cells (id, table_id, row_id, column_id, workspace_id, origin_id, is_identifier, data, is_deleted, created_at, updated_at)
  SELECT ?6 || printf('%06d', key) || ?8, ?1, json_extract(value, '$[0]'), ?5, ?2, '', ?7, json_extract(value, '$[1]'), 0, ?3, ?3
  FROM json_each(?4) WHERE json_extract(value, '$[1]') IS NOT NULL
  ON CONFLICT(row_id, column_id) DO UPDATE SET data = excluded.data, is_deleted = 0, updated_at = excluded.updated_at
    WHERE cells.data IS NOT excluded.data OR cells.is_deleted = 1${returning ? " RETURNING row_id" : ""}`;
const clearSql = (returning: boolean) => `UPDATE cells SET data = NULL, updated_at = ?3
  WHERE row_id IN (SELECT value FROM json_each(?1)) AND column_id = ?2 AND data IS NOT NULL AND is_deleted = 0${returning ? " RETURNING row_id" : ""}`;

/** Cells per statement and bytes of its JSON parameter (D1 caps a value at 2 MB). */
const CELLS_PER_STATEMENT = 5_000;
const BYTES_PER_STATEMENT = 900_000;

const CROCKFORD = "0123456789ABCDEFGHJKMNPQRSTVWXYZ";

/** 20 characters: a ULID's 10-character time part and 10 random base-32 characters. */
function idPrefix(): string {
  const random = crypto.getRandomValues(new Uint8Array(10));
  let out = newId().slice(0, 10);
  for (const b of random) out += CROCKFORD[b & 31];
  return out;
}

/** Statements writing `cells` (only the ones that differ from what is stored), to run in one batch. */
export function cellWriteStatements(
  d1: D1Database,
  scope: {
    tableId: string;
    workspaceId: string;
    now: number;
    /** The context's id issuer: the cells' ids are built in SQL, ending as the ids issued beside the table. */
    ids: IdIssuer;
    identifierColumnId?: string;
    returning?: boolean;
  },
  cells: readonly CellUpsert[],
): D1PreparedStatement[] {
  const byColumn = new Map<string, { values: string[]; blanks: string[] }>();
  for (const c of cells) {
    let lists = byColumn.get(c.columnId);
    if (!lists) byColumn.set(c.columnId, (lists = { values: [], blanks: [] }));
    if (c.data === null) lists.blanks.push(JSON.stringify(c.rowId));
    else lists.values.push(JSON.stringify([c.rowId, c.data]));
  }
  const returning = scope.returning ?? false;
  const statements: D1PreparedStatement[] = [];
  const shard = scope.ids.suffixBeside(scope.tableId);
  for (const [columnId, { values, blanks }] of byColumn) {
    const isIdentifier = columnId === scope.identifierColumnId ? 1 : 0;
    for (const part of jsonChunks(values)) {
      statements.push(
        statement(
          d1,
          upsertSql(returning),
          scope.tableId,
          scope.workspaceId,
          scope.now,
          part,
          columnId,
          idPrefix(),
          isIdentifier,
          shard,
        ),
      );
    }
    for (const part of jsonChunks(blanks))
      statements.push(statement(d1, clearSql(returning), part, columnId, scope.now));
  }
  return statements;
}

/** JSON arrays of the given JSON items, each within the per-statement cell and byte limits. */
function jsonChunks(items: readonly string[]): string[] {
  const out: string[] = [];
  let chunk: string[] = [];
  let bytes = 0;
  for (const item of items) {
    if (chunk.length >= CELLS_PER_STATEMENT || bytes + item.length > BYTES_PER_STATEMENT) {
      out.push(`[${chunk.join(",")}]`);
      chunk = [];
      bytes = 0;
    }
    chunk.push(item);
    bytes += item.length + 1;
  }
  if (chunk.length > 0) out.push(`[${chunk.join(",")}]`);
  return out;
}

/** Stores a formula column's data and its parsed formula. */
export function persistFormulaStatement(
  d1: D1Database,
  columnId: string,
  data: Record<string, unknown> & { type: string },
  formula: StoredFormula,
  now: number,
): D1PreparedStatement {
  return statement(
    d1,
    "UPDATE columns SET data = ?1, formula = ?2, updated_at = ?3 WHERE id = ?4",
    JSON.stringify(data),
    JSON.stringify(formula),
    now,
    columnId,
  );
}

/** The live cells of `columnIds` in the rows `rowIds` (the formula cells a write answers with), by row then column. */
export function formulaCellsStatement(d1: D1Database, rowIds: readonly string[], columnIds: readonly string[]) {
  return statement(
    d1,
    `SELECT * FROM cells WHERE row_id IN (SELECT value FROM json_each(?1))
      AND column_id IN (SELECT value FROM json_each(?2)) AND is_deleted = 0 ORDER BY row_id, column_id`,
    JSON.stringify(rowIds),
    JSON.stringify(columnIds),
  );
}

/** The live columns of `tableIds` whose formula names one of `columnIds` (with their table's name). */
export function columnsNamingStatement(d1: D1Database, tableIds: readonly string[], columnIds: readonly string[]) {
  return statement(
    d1,
    `SELECT c.name, t.name AS table_name, c.formula FROM columns c JOIN tables t ON t.id = c.table_id WHERE c.is_deleted = 0 AND c.table_id IN (SELECT value FROM json_each(?1))
        AND EXISTS (SELECT 1 FROM json_each(?2) j WHERE instr(c.formula, '"' || j.value || '"') > 0)`,
    JSON.stringify(tableIds),
    JSON.stringify(columnIds),
  );
}
