/**
 * D1 access of the formula engine, in raw prepared statements: pages of rows and cells read with keyset
 * paging in one round trip each, and cells written with one json_each upsert per few thousand cells (D1 allows
 * 100 bound parameters per statement, so values travel as one JSON parameter), all in one atomic batch.
 */
import type { Db } from "../../env";
import { newId } from "../../lib/ids";
import type { StoredFormula } from "./expression";
import type { TableColumn } from "./graph";

export type DbLike = D1Database | Db;

/** The raw binding behind a Drizzle client or the binding itself. */
export function d1Of(db: DbLike): D1Database {
  return "$client" in db ? (db as unknown as { $client: D1Database }).$client : (db as D1Database);
}

export interface TableInfo {
  id: string;
  workspaceId: string;
  projectId: string;
  isDeleted: boolean;
}

export async function loadTable(d1: D1Database, tableId: string): Promise<{ table: TableInfo | null; columns: TableColumn[] }> {
  const [tables, columns] = await d1.batch<Record<string, unknown>>([
    d1.prepare("SELECT id, workspace_id, project_id, is_deleted FROM tables WHERE id = ?").bind(tableId),
    d1.prepare("SELECT id, name, is_identifier, is_deleted, data, formula FROM columns WHERE table_id = ? ORDER BY created_at, id").bind(tableId),
  ]);
  const t = tables!.results[0];
  return {
    table: t ? { id: String(t.id), workspaceId: String(t.workspace_id), projectId: String(t.project_id), isDeleted: Boolean(t.is_deleted) } : null,
    columns: columns!.results.map((c) => {
      const data = parseJson(c.data) as (Record<string, unknown> & { type: string }) | null;
      const safeData = data && typeof data === "object" && typeof data.type === "string" ? data : { type: "text" };
      return {
        id: String(c.id),
        name: String(c.name),
        type: safeData.type,
        isIdentifier: Boolean(c.is_identifier),
        isDeleted: Boolean(c.is_deleted),
        data: safeData,
        formula: (parseJson(c.formula) as StoredFormula | null) ?? null,
      };
    }),
  };
}

function parseJson(text: unknown): unknown {
  if (typeof text !== "string") return null;
  try {
    return JSON.parse(text);
  } catch {
    return null;
  }
}

/** Cells of a set of rows: row id → column id → the stored JSON text (null for a SQL NULL). */
export type RowCells = Map<string, Map<string, string | null>>;

export interface RowPage {
  rowIds: string[];
  cells: RowCells;
}

const ROW_PAGE_SQL = "SELECT id FROM rows WHERE table_id = ?1 AND is_deleted = 0 AND id > ?2 ORDER BY id LIMIT ?3";
// `+column_id` keeps SQLite off the column_id index (which would scan every cell of the column for each
// page); the (row_id, column_id) unique index then answers each row of the page directly.
const PAGE_CELLS_SQL = `SELECT row_id, column_id, data FROM cells
  WHERE row_id IN (SELECT id FROM rows WHERE table_id = ?1 AND is_deleted = 0 AND id > ?2 ORDER BY id LIMIT ?3)
    AND +column_id IN (SELECT value FROM json_each(?4)) AND is_deleted = 0`;

/** One keyset page: the next `limit` live rows after `afterId` and their cells in `columnIds`, in one round trip. */
export async function readRowPage(d1: D1Database, tableId: string, afterId: string, limit: number, columnIds: readonly string[]): Promise<RowPage> {
  const cols = JSON.stringify(columnIds);
  const [rows, cells] = await d1.batch<Record<string, unknown>>([
    d1.prepare(ROW_PAGE_SQL).bind(tableId, afterId, limit),
    d1.prepare(PAGE_CELLS_SQL).bind(tableId, afterId, limit, cols),
  ]);
  return { rowIds: rows!.results.map((r) => String(r.id)), cells: groupCells(cells!.results) };
}

/** Live rows of the table among `rowIds` (others are dropped) and their cells in `columnIds`. */
export async function readRows(d1: D1Database, tableId: string, rowIds: readonly string[], columnIds: readonly string[]): Promise<RowPage> {
  const ids = JSON.stringify([...new Set(rowIds)]);
  const [rows, cells] = await d1.batch<Record<string, unknown>>([
    d1.prepare("SELECT id FROM rows WHERE id IN (SELECT value FROM json_each(?1)) AND table_id = ?2 AND is_deleted = 0 ORDER BY id").bind(ids, tableId),
    d1
      .prepare(
        `SELECT c.row_id, c.column_id, c.data FROM cells c JOIN rows r ON r.id = c.row_id
         WHERE c.row_id IN (SELECT value FROM json_each(?1)) AND r.table_id = ?2 AND r.is_deleted = 0
           AND +c.column_id IN (SELECT value FROM json_each(?3)) AND c.is_deleted = 0`,
      )
      .bind(ids, tableId, JSON.stringify(columnIds)),
  ]);
  return { rowIds: rows!.results.map((r) => String(r.id)), cells: groupCells(cells!.results) };
}

function groupCells(results: Record<string, unknown>[]): RowCells {
  const out: RowCells = new Map();
  for (const c of results) {
    const rowId = String(c.row_id);
    let row = out.get(rowId);
    if (!row) out.set(rowId, (row = new Map()));
    row.set(String(c.column_id), c.data === null || c.data === undefined ? null : String(c.data));
  }
  return out;
}

/** One cell to store: `data` is the JSON text of the value, or null for blank. */
export interface CellUpsert {
  rowId: string;
  columnId: string;
  data: string | null;
  isIdentifier: boolean;
}

const UPSERT_SQL = `INSERT INTO cells (id, table_id, row_id, column_id, workspace_id, origin_id, is_identifier, data, is_deleted, created_at, updated_at)
  SELECT json_extract(value, '$[0]'), ?1, json_extract(value, '$[1]'), json_extract(value, '$[2]'), ?2, '',
         json_extract(value, '$[4]'), json_extract(value, '$[3]'), 0, ?3, ?3
  FROM json_each(?4) WHERE true
  ON CONFLICT(row_id, column_id) DO UPDATE SET data = excluded.data, is_deleted = 0, updated_at = excluded.updated_at`;

/** Cells per upsert statement and bytes of its JSON parameter (D1 caps a value at 2 MB). */
const UPSERT_CELLS = 5_000;
const UPSERT_BYTES = 900_000;

/** Upsert statements for `cells`, a few thousand cells each, to run in one batch. */
export function cellUpsertStatements(d1: D1Database, scope: { tableId: string; workspaceId: string; now: number }, cells: readonly CellUpsert[]): D1PreparedStatement[] {
  const statements: D1PreparedStatement[] = [];
  let chunk: string[] = [];
  let bytes = 0;
  const flush = () => {
    if (chunk.length === 0) return;
    statements.push(d1.prepare(UPSERT_SQL).bind(scope.tableId, scope.workspaceId, scope.now, `[${chunk.join(",")}]`));
    chunk = [];
    bytes = 0;
  };
  for (const c of cells) {
    const item = JSON.stringify([newId(), c.rowId, c.columnId, c.data, c.isIdentifier ? 1 : 0]);
    if (chunk.length >= UPSERT_CELLS || bytes + item.length > UPSERT_BYTES) flush();
    chunk.push(item);
    bytes += item.length + 1;
  }
  flush();
  return statements;
}

export function persistFormulaStatement(
  d1: D1Database,
  columnId: string,
  data: Record<string, unknown> & { type: string },
  formula: StoredFormula,
  now: number,
): D1PreparedStatement {
  return d1
    .prepare("UPDATE columns SET data = ?1, formula = ?2, updated_at = ?3 WHERE id = ?4")
    .bind(JSON.stringify(data), JSON.stringify(formula), now, columnId);
}
