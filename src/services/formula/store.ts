/**
 * D1 access of the formula engine, in raw prepared statements: pages of rows and cells read with keyset
 * paging in one round trip each, and cells written with one json_each upsert per few thousand cells (D1 allows
 * 100 bound parameters per statement, so values travel as one JSON parameter), all in one atomic batch.
 */
import { newId } from "../../lib/ids";
import type { StoredFormula } from "./expression";
import type { TableColumn } from "./graph";
import { d1Of } from "../../db/d1";
import type { ServiceContext } from "../context";
import { shardSuffixBeside } from "../../db/shardIds";

export interface TableInfo {
  id: string;
  workspaceId: string;
  projectId: string;
  isDeleted: boolean;
}

export interface LoadedTable {
  table: TableInfo | null;
  columns: TableColumn[];
  /** For each relation (oneMany column) of the table: the live columns of the live table it links to, in the same project. */
  linked: Map<string, TableColumn[]>;
  /** Other tables with a formula that may look into this one through a relation (recomputed after a change here). */
  dependentTables: string[];
}

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

function tableColumn(c: Record<string, unknown>): TableColumn {
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
}

/** The table, its columns, its relations' linked columns and the tables that look into it: one round trip. */
export async function loadTable(ctx: ServiceContext, tableId: string): Promise<LoadedTable> {
  const d1 = d1Of(ctx.db);
  const [tables, columns, linkedColumns, dependents] = await d1.batch<Record<string, unknown>>([
    d1.prepare("SELECT id, workspace_id, project_id, is_deleted FROM tables WHERE id = ?").bind(tableId),
    d1.prepare(`SELECT ${COLUMN_FIELDS} FROM columns WHERE table_id = ? ORDER BY created_at, id`).bind(tableId),
    d1.prepare(LINKED_COLUMNS).bind(tableId),
    d1.prepare(DEPENDENT_TABLES).bind(tableId),
  ]);
  const t = tables!.results[0];
  const cols = columns!.results.map(tableColumn);
  const byTable = new Map<string, TableColumn[]>();
  for (const c of linkedColumns!.results) {
    const list = byTable.get(String(c.table_id)) ?? [];
    list.push(tableColumn(c));
    byTable.set(String(c.table_id), list);
  }
  const linked = new Map<string, TableColumn[]>();
  for (const c of cols) {
    const target = c.data.type === "oneMany" && !c.isDeleted ? (c.data.oneMany as { tableId?: unknown } | undefined)?.tableId : undefined;
    const list = typeof target === "string" ? byTable.get(target) : undefined;
    if (list) linked.set(c.id, list);
  }
  return {
    table: t ? { id: String(t.id), workspaceId: String(t.workspace_id), projectId: String(t.project_id), isDeleted: Boolean(t.is_deleted) } : null,
    columns: cols,
    linked,
    dependentTables: dependents!.results.map((r) => String(r.table_id)),
  };
}

/**
 * A linked table's live rows in listing order (seq, id) with the raw values of `columnIds`, for lookups: one
 * query per table, all in one batch.
 */
export async function readLinkedRows(ctx: ServiceContext, wanted: ReadonlyMap<string, readonly string[]>): Promise<Map<string, { ids: string[]; values: Record<string, unknown>[] }>> {
  const d1 = d1Of(ctx.db);
  const entries = [...wanted.entries()];
  const out = new Map<string, { ids: string[]; values: Record<string, unknown>[] }>();
  if (entries.length === 0) return out;
  const sql = `SELECT r.id, (SELECT json_group_object(c.column_id, json(c.data)) FROM cells c WHERE c.row_id = r.id AND c.is_deleted = 0
      AND c.data IS NOT NULL AND c.column_id IN (SELECT value FROM json_each(?2))) AS cells FROM rows r WHERE r.table_id = ?1 AND r.is_deleted = 0 ORDER BY r.seq, r.id`;
  const results = await d1.batch<Record<string, unknown>>(entries.map(([tableId, cols]) => d1.prepare(sql).bind(tableId, JSON.stringify(cols))));
  entries.forEach(([tableId], i) => {
    const rows = results[i]!.results;
    out.set(tableId, { ids: rows.map((r) => String(r.id)), values: rows.map((r) => (parseJson(r.cells) as Record<string, unknown> | null) ?? {}) });
  });
  return out;
}

function parseJson(text: unknown): unknown {
  if (typeof text !== "string") return null;
  try {
    return JSON.parse(text);
  } catch {
    return null;
  }
}

/**
 * Rows and their cells in the requested columns: `texts[i][k]` is the stored JSON text of row `rowIds[i]` in
 * column `columnIds[k]`, or null when the cell is missing, deleted or SQL NULL (all blank to a formula).
 */
export interface RowPage {
  rowIds: string[];
  columnIds: readonly string[];
  texts: Array<Array<string | null>>;
}

/**
 * Row-shaped reads: one result row per table row, one column per needed cell, each a correlated lookup on the
 * (row_id, column_id) unique index. Four times fewer result rows than a cell-per-row join, and rows without
 * any cell still come back. Column ids are bound parameters, so they go in groups under D1's 100-parameter cap.
 */
const COLUMNS_PER_QUERY = 90;

function rowShapedSql(where: string, columnCount: number, firstParam: number): string {
  const lookups = Array.from(
    { length: columnCount },
    (_, i) => `(SELECT c.data FROM cells c WHERE c.row_id = r.id AND c.column_id = ?${firstParam + i} AND c.is_deleted = 0) AS c${i}`,
  );
  return `SELECT ${["r.id AS id", ...lookups].join(", ")} FROM rows r WHERE ${where}`;
}

/** The same rows folded into one JSON text `[[id, c0, c1, …], …]`: one value to move instead of a row each (readRows). */
function groupedSql(where: string, columnCount: number, firstParam: number): string {
  const names = Array.from({ length: columnCount }, (_, i) => `c${i}`);
  return `SELECT json_group_array(json_array(${["id", ...names].join(", ")})) FROM (${rowShapedSql(where, columnCount, firstParam)})`;
}

/**
 * Whether keyset pages are read column by column as JSON texts (columnScanSql); otherwise, and for a page too big
 * to fold (D1 caps a value at 2 MB, so a page of long texts can be), they are read as rows (rowShapedSql).
 */
export const readOptions = { grouped: true };

/**
 * A keyset page read column by column: the page's live row ids (`p`, joined by commas), then for each column one
 * range scan of its cells in the page's id range on the (column_id, row_id) index — no lookup per row. A column's
 * cells come back as a JSON list of their data aligned with the page's ids when the scan met exactly the page's
 * rows in the same order (the usual case: every row has the cell), compared as the ids joined in SQL; otherwise
 * (rows without the cell, cells of deleted rows in the range) as `[rowId, data]` pairs, matched by id. Deleted
 * cells read as blank. Two aggregates of one scan see the rows in the same order, so alignment needs no ORDER BY.
 */
function columnScanSql(columnCount: number, firstParam: number): string {
  const scans = Array.from({ length: columnCount }, (_, i) => {
    const data = "CASE WHEN c.is_deleted = 0 THEN c.data END";
    return `(SELECT CASE WHEN group_concat(c.row_id, ',') IS (SELECT ids FROM b) THEN json_group_array(${data})
      ELSE json_group_array(json_array(c.row_id, ${data})) END
      FROM cells c WHERE c.column_id = ?${firstParam + i} AND c.row_id > ?2 AND c.row_id <= (SELECT hi FROM b))`;
  });
  return `WITH p AS MATERIALIZED (SELECT id FROM rows WHERE table_id = ?1 AND is_deleted = 0 AND id > ?2 ORDER BY id LIMIT ?3),
    b AS MATERIALIZED (SELECT max(id) AS hi, group_concat(id, ',') AS ids FROM p)
    SELECT ${["(SELECT ids FROM b)", ...scans].join(", ")}`;
}

/** Rows (id first, then one value per column) of one query, in whatever order it gave them. */
type RowsOfGroup = unknown[][];

const isTooBig = (err: unknown) => /too ?big|SQLITE_TOOBIG|string or blob/i.test(String(err));

/** One group's page read column by column (columnScanSql), as rows; null when a value is too big to fold. */
async function readColumnScan(d1: D1Database, params: { tableId: string; afterId: string; limit: number }, columnIds: readonly string[]): Promise<RowsOfGroup | null> {
  let row: unknown[] | undefined;
  try {
    [row] = await d1.prepare(columnScanSql(columnIds.length, 4)).bind(params.tableId, params.afterId, params.limit, ...columnIds).raw<unknown[]>();
  } catch (err) {
    if (isTooBig(err)) return null;
    throw err;
  }
  // Ids are letters, digits, "_" and "-" (src/lib/ids.ts), so the comma-joined list splits back exactly.
  const joined = row?.[0];
  const ids = typeof joined === "string" && joined !== "" ? joined.split(",") : [];
  const rows: RowsOfGroup = ids.map((id) => {
    const r = new Array<unknown>(columnIds.length + 1).fill(null);
    r[0] = id;
    return r;
  });
  let indexOf: Map<string, number> | null = null;
  for (let k = 0; k < columnIds.length; k++) {
    const cells = JSON.parse(String(row![k + 1] ?? "[]")) as unknown[];
    if (cells.length === 0) continue;
    if (!Array.isArray(cells[0])) {
      // Aligned with the ids (SQL compared them).
      if (cells.length !== rows.length) throw new Error("formula page read: a column's cells do not match the page's rows");
      for (let i = 0; i < cells.length; i++) rows[i]![k + 1] = cells[i];
      continue;
    }
    indexOf ??= new Map(rows.map((r, i) => [String(r[0]), i]));
    for (const pair of cells as unknown[][]) {
      const i = indexOf.get(String(pair[0]));
      if (i !== undefined) rows[i]![k + 1] = pair[1];
    }
  }
  return rows;
}

/**
 * Reads `columnIds` of the rows `where` selects, in groups of COLUMNS_PER_QUERY (concurrently), and merges them
 * into a RowPage in id order. `page`, for keyset pages, reads column by column (columnScanSql) when it can.
 */
async function readRowShaped(
  d1: D1Database,
  where: string,
  whereParams: unknown[],
  columnIds: readonly string[],
  page?: { tableId: string; afterId: string; limit: number },
): Promise<RowPage> {
  const groups: string[][] = [];
  for (let i = 0; i < columnIds.length; i += COLUMNS_PER_QUERY) groups.push(columnIds.slice(i, i + COLUMNS_PER_QUERY));
  if (groups.length === 0) groups.push([]);
  const first = whereParams.length + 1;
  const readGroup = async (g: string[]): Promise<RowsOfGroup> => {
    if (readOptions.grouped && page) {
      const rows = await readColumnScan(d1, page, g);
      if (rows) return rows;
    } else if (readOptions.grouped) {
      try {
        const [row] = await d1.prepare(groupedSql(where, g.length, first)).bind(...whereParams, ...g).raw<[string]>();
        return JSON.parse(row?.[0] ?? "[]") as unknown[][];
      } catch (err) {
        if (!isTooBig(err)) throw err;
      }
    }
    return d1.prepare(rowShapedSql(where, g.length, first)).bind(...whereParams, ...g).raw<unknown[]>();
  };
  // Groups (only for formulas reading more than COLUMNS_PER_QUERY columns) run concurrently.
  const results = await Promise.all(groups.map(readGroup));
  // An aggregate's order is not promised by SQL; keyset paging needs the rows in id order.
  const first0 = results[0]!;
  for (let i = 1; i < first0.length; i++) {
    if (String(first0[i - 1]![0]) > String(first0[i]![0])) {
      first0.sort((a, b) => (String(a[0]) < String(b[0]) ? -1 : 1));
      break;
    }
  }
  const rowIds = results[0]!.map((r) => String(r[0]));
  const texts = rowIds.map(() => new Array<string | null>(columnIds.length).fill(null));
  const indexOf = results.length > 1 ? new Map(rowIds.map((id, i) => [id, i])) : null;
  let offset = 0;
  results.forEach((result, gi) => {
    const width = groups[gi]!.length;
    result.forEach((r, i) => {
      // Groups are separate queries: match their rows by id, not position.
      const row = gi === 0 ? texts[i] : texts[indexOf!.get(String(r[0])) ?? -1];
      if (!row) return;
      for (let k = 0; k < width; k++) {
        const data = r[k + 1];
        if (data !== null && data !== undefined) row[offset + k] = String(data);
      }
    });
    offset += width;
  });
  return { rowIds, columnIds, texts };
}

/** One keyset page: the next `limit` live rows after `afterId` and their cells in `columnIds`, in one query. */
export function readRowPage(ctx: ServiceContext, input: { tableId: string; afterId: string; limit: number; columnIds: readonly string[] }): Promise<RowPage> {
  const { tableId, afterId, limit, columnIds } = input;
  return readRowShaped(d1Of(ctx.db), "r.table_id = ?1 AND r.is_deleted = 0 AND r.id > ?2 ORDER BY r.id LIMIT ?3", [tableId, afterId, limit], columnIds, { tableId, afterId, limit });
}

/** Live rows of the table among `rowIds` (others are dropped) and their cells in `columnIds`. */
export function readRows(ctx: ServiceContext, input: { tableId: string; rowIds: readonly string[]; columnIds: readonly string[] }): Promise<RowPage> {
  const { tableId, rowIds, columnIds } = input;
  return readRowShaped(
    d1Of(ctx.db),
    "r.id IN (SELECT value FROM json_each(?1)) AND r.table_id = ?2 AND r.is_deleted = 0 ORDER BY r.id",
    [JSON.stringify([...new Set(rowIds)]), tableId],
    columnIds,
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
const upsertSql = (returning: boolean) => `INSERT INTO cells (id, table_id, row_id, column_id, workspace_id, origin_id, is_identifier, data, is_deleted, created_at, updated_at)
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
  scope: { tableId: string; workspaceId: string; now: number; identifierColumnId?: string; returning?: boolean },
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
  const shard = shardSuffixBeside(scope.tableId);
  for (const [columnId, { values, blanks }] of byColumn) {
    const isIdentifier = columnId === scope.identifierColumnId ? 1 : 0;
    for (const part of jsonChunks(values)) {
      statements.push(d1.prepare(upsertSql(returning)).bind(scope.tableId, scope.workspaceId, scope.now, part, columnId, idPrefix(), isIdentifier, shard));
    }
    for (const part of jsonChunks(blanks)) statements.push(d1.prepare(clearSql(returning)).bind(part, columnId, scope.now));
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
