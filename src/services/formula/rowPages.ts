/**
 * Pages of rows and their cells for the formula engine, in raw prepared statements: a keyset page, or given rows,
 * with the cells of the columns a formula reads, each in one round trip per group of columns (D1 allows 100 bound
 * parameters per statement). Table metadata and cell writes are in ./store.ts.
 */
import { d1Of, statement } from "../../db/d1";
import type { ServiceContext } from "../context";

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
    (_, i) =>
      `(SELECT c.data FROM cells c WHERE c.row_id = r.id AND c.column_id = ?${firstParam + i} AND c.is_deleted = 0) AS c${i}`,
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
async function readColumnScan(
  d1: D1Database,
  params: { tableId: string; afterId: string; limit: number },
  columnIds: readonly string[],
): Promise<RowsOfGroup | null> {
  let row: unknown[] | undefined;
  try {
    [row] = await statement(
      d1,
      columnScanSql(columnIds.length, 4),
      params.tableId,
      params.afterId,
      params.limit,
      ...columnIds,
    ).raw<unknown[]>();
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
      if (cells.length !== rows.length)
        throw new Error("formula page read: a column's cells do not match the page's rows");
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
        const [row] = await statement(d1, groupedSql(where, g.length, first), ...whereParams, ...g).raw<[string]>();
        return JSON.parse(row?.[0] ?? "[]") as unknown[][];
      } catch (err) {
        if (!isTooBig(err)) throw err;
      }
    }
    return statement(d1, rowShapedSql(where, g.length, first), ...whereParams, ...g).raw<unknown[]>();
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
export function readRowPage(
  ctx: ServiceContext,
  input: { tableId: string; afterId: string; limit: number; columnIds: readonly string[] },
): Promise<RowPage> {
  const { tableId, afterId, limit, columnIds } = input;
  return readRowShaped(
    d1Of(ctx.db),
    "r.table_id = ?1 AND r.is_deleted = 0 AND r.id > ?2 ORDER BY r.id LIMIT ?3",
    [tableId, afterId, limit],
    columnIds,
    { tableId, afterId, limit },
  );
}

/** Live rows of the table among `rowIds` (others are dropped) and their cells in `columnIds`. */
export function readRows(
  ctx: ServiceContext,
  input: { tableId: string; rowIds: readonly string[]; columnIds: readonly string[] },
): Promise<RowPage> {
  const { tableId, rowIds, columnIds } = input;
  return readRowShaped(
    d1Of(ctx.db),
    "r.id IN (SELECT value FROM json_each(?1)) AND r.table_id = ?2 AND r.is_deleted = 0 ORDER BY r.id",
    [JSON.stringify([...new Set(rowIds)]), tableId],
    columnIds,
  );
}
