/**
 * Querying rows (docs/api-guide.md › Querying rows): GET /table/{tableId}/rows with filter, sort, fields, search,
 * expand and cellFormat, and POST /table/{tableId}/query. Filters and sorts are compiled to one SQL statement over
 * the cells table's value index; the Worker only shapes the page it gets back.
 */
import { and, eq, inArray, sql, type SQL } from "drizzle-orm";
import { rows } from "../../../db/schema";
import { unprocessable, type ErrorDetail } from "../../../errors";
import { checkTableAccess, tableAccessStatement } from "../../../auth/tableAccess";
import { ftsExpression, scopeWord } from "../../search/query";
import { read, type ServiceContext } from "../../context";
import { liveColumnsQuery } from "../columns";
import { assemblePage, cellsJson, commentCounts, decodeCursor, encodeCursor, type RowsPage } from "../rowReads";
import type { ColumnRow, TableRow } from "../serialize";
import { compileFilter, type FilterScope } from "./filter";
import {
  afterSql,
  checkSort,
  decodeSortedCursor,
  encodeSortedCursor,
  MATCH_KEYS,
  orderBySql,
  sortKeyFields,
  type KeyValue,
  type SortKey,
} from "./sort";
import { rowValue } from "./sqlParts";
import { shapePage, checkShape, type ShapeOptions } from "./shape";

export interface RowQuery {
  filter?: unknown;
  sort?: unknown;
  fields?: string[];
  search?: string;
  expand?: string[];
  cellFormat?: "json" | "string";
  limit: number;
  cursor?: string;
}

export type QueryAnswer = RowsPage & { warnings?: { columnId: string; message: string }[] };

/** Whether a query uses any member beyond limit and cursor (without them GET …/rows answers as it always did). */
export function isPlainListing(q: RowQuery): boolean {
  return (
    q.filter === undefined &&
    q.sort === undefined &&
    q.fields === undefined &&
    q.search === undefined &&
    q.expand === undefined &&
    q.cellFormat === undefined
  );
}

export interface CompiledQuery {
  where: SQL[];
  sort: ReturnType<typeof checkSort>;
  shape: ShapeOptions;
  warnings: { columnId: string; message: string }[];
}

/**
 * The query checked against the table's columns and compiled; 422 listing every problem with its path.
 * `extraFilter` (a view's own filter) is combined with `and`; its conditions on deleted columns are dropped and
 * reported as warnings.
 */
export function compileQuery(
  ctx: ServiceContext,
  table: TableRow,
  columnList: ColumnRow[],
  q: RowQuery,
  viewFilter?: unknown,
): CompiledQuery {
  const columnsById = new Map(columnList.map((c) => [c.id, c]));
  const details: ErrorDetail[] = [];
  const sort = checkSort(q.sort, columnsById, details);
  const scope: FilterScope = {
    columnsById,
    columns: columnList,
    now: ctx.now,
    details,
    conditions: 0,
    scanInOrder: sort.length === 0,
  };
  const where: SQL[] = [];
  const warnings: { columnId: string; message: string }[] = [];
  if (viewFilter !== undefined && viewFilter !== null) {
    const viewSql = compileFilter(viewFilter, "view.filter", { ...scope, details: [], dropDeleted: warnings });
    if (viewSql) where.push(viewSql);
  }
  if (q.filter !== undefined) {
    const f = compileFilter(q.filter, "filter", scope);
    if (f) where.push(f);
  }
  const shape = checkShape(q, columnsById, details);
  if (q.search !== undefined) where.push(searchSql(table, q.search));
  if (details.length)
    throw unprocessable(
      `Invalid query: ${details
        .slice(0, 3)
        .map((d) => `${d.path}: ${d.message}`)
        .join("; ")}`,
      details,
    );
  return { where, sort, shape, warnings };
}

/** Rows of the table whose indexed text matches the search words (§19 syntax), through the search index. */
function searchSql(table: TableRow, search: string): SQL {
  const match = `${ftsExpression(search)} AND scope : ${scopeWord("k", "row")} AND scope : ${scopeWord("p", table.projectId)}`;
  return sql`"rows"."id" IN (SELECT e.record_id FROM search_fts f JOIN search_entries e ON e.id = f.rowid
    WHERE search_fts MATCH ${match} AND e.kind = 'row' AND e.live = 1)`;
}

/**
 * The ids of a sorted page: every match with its keys read once (a MATERIALIZED set, so SQLite neither reads a key
 * again for ORDER BY nor for the cursor's comparison), then sorted and cut.
 */
function sortedPageIds(tableId: string, compiled: CompiledQuery, q: RowQuery): SQL {
  const { sort } = compiled;
  const where = and(eq(rows.tableId, tableId), eq(rows.isDeleted, false), ...compiled.where);
  const order = sql.join(orderBySql(sort, MATCH_KEYS), sql`, `);
  if (!q.cursor && sort.length > 1) return firstPageByFirstKey(sort, where, order, q.limit);
  const keys = Object.entries(sortKeyFields(sort)).map(([name, v]) => sql`${v} AS ${sql.raw(name)}`);
  const after = q.cursor ? sql`WHERE ${afterSql(sort, decodeSortedCursor(sort, q.cursor), MATCH_KEYS)}` : sql``;
  return sql`(WITH m AS MATERIALIZED (SELECT "rows"."id" AS id, "rows"."seq" AS seq, ${sql.join(keys, sql`, `)}
      FROM "rows" WHERE ${where})
    SELECT id FROM m ${after} ORDER BY ${order} LIMIT ${q.limit + 1})`;
}

/**
 * A first page sorted on several keys: the first key of every match, then the other keys only for the matches
 * that can make the page — those whose first key sorts at or before the first key of the (limit + 1)th match in
 * first-key order (all of them when that key is empty, empty keys sorting last, or when fewer match).
 */
function firstPageByFirstKey(sort: readonly SortKey[], where: SQL | undefined, order: SQL, limit: number): SQL {
  const [first, ...rest] = sort as [SortKey, ...SortKey[]];
  const others = rest.map((k, i) => sql`${rowValue(k.columnId, "m.id")} AS ${sql.raw(`k${i + 1}`)}`);
  const dir = sql.raw(first.direction === "desc" ? "DESC" : "ASC");
  const within = sql.raw(first.direction === "desc" ? ">=" : "<=");
  return sql`(WITH m AS MATERIALIZED (SELECT "rows"."id" AS id, "rows"."seq" AS seq, ${rowValue(first.columnId)} AS k0
      FROM "rows" WHERE ${where}),
    cut AS MATERIALIZED (SELECT k0 FROM m ORDER BY k0 IS NULL, k0 ${dir} LIMIT 1 OFFSET ${limit}),
    c AS MATERIALIZED (SELECT m.id AS id, m.seq AS seq, m.k0 AS k0, ${sql.join(others, sql`, `)} FROM m
      WHERE NOT EXISTS (SELECT 1 FROM cut) OR (SELECT k0 FROM cut) IS NULL OR m.k0 ${within} (SELECT k0 FROM cut))
    SELECT id FROM c ORDER BY ${order} LIMIT ${limit + 1})`;
}

/** The page statement: up to limit + 1 rows after the cursor, in the query's order. */
export function pageStatement(ctx: ServiceContext, tableId: string, compiled: CompiledQuery, q: RowQuery) {
  const { sort } = compiled;
  const conditions: SQL[] = [...compiled.where];
  if (q.cursor && sort.length === 0) {
    const after = decodeCursor(q.cursor);
    conditions.push(sql`("rows"."seq", "rows"."id") > (${after.seq}, ${after.id})`);
  }
  // The page's ids first (sorted and cut in SQL), then the values of those rows only: a value object per row is
  // built for the page, not for every row the filter matched.
  const inPage =
    sort.length === 0
      ? inArray(
          rows.id,
          ctx.db
            .select({ id: rows.id })
            .from(rows)
            .where(and(eq(rows.tableId, tableId), eq(rows.isDeleted, false), ...conditions))
            .orderBy(...orderBySql(sort))
            .limit(q.limit + 1),
        )
      : sql`${rows.id} IN ${sortedPageIds(tableId, compiled, q)}`;
  return ctx.db
    .select({ row: rows, cells: cellsJson, comments: commentCounts, ...sortKeyFields(sort) })
    .from(rows)
    .where(inPage)
    .orderBy(...orderBySql(sort));
}

/** Runs a compiled query: the page, then the shaping (oneMany values, expand, fields, cellFormat). */
export async function runQuery(
  ctx: ServiceContext,
  input: { tableId: string; columns: ColumnRow[]; compiled: CompiledQuery; query: RowQuery },
): Promise<QueryAnswer> {
  const { compiled, query } = input;
  const page = (await pageStatement(ctx, input.tableId, compiled, query)) as ({
    row: typeof rows.$inferSelect;
    cells: string | null;
    comments: string;
  } & Record<string, KeyValue>)[];
  const answer = await assemblePage(ctx, input.columns, page, query.limit);
  if (compiled.sort.length && answer.nextCursor) {
    const last = page[query.limit - 1]!;
    answer.nextCursor = encodeSortedCursor(compiled.sort, {
      keys: compiled.sort.map((_, i) => last[`k${i}`] ?? null),
      seq: last.row.seq,
      id: last.row.id,
    });
  } else if (answer.nextCursor) {
    const last = page[query.limit - 1]!;
    answer.nextCursor = encodeCursor(last.row.seq, last.row.id);
  }
  const data = await shapePage(ctx, { columns: input.columns, shape: compiled.shape, rows: answer.data });
  return { data, nextCursor: answer.nextCursor, ...(compiled.warnings.length ? { warnings: compiled.warnings } : {}) };
}

/**
 * GET /table/{tableId}/rows with query members, POST /table/{tableId}/query: access and columns ride in the
 * authentication batch; the page (compiled from the columns) is the second round trip.
 */
export async function queryRows(
  ctx: ServiceContext,
  input: { tableId: string; query: RowQuery },
): Promise<QueryAnswer> {
  const [[tableRow], columnList] = await read(ctx, [
    tableAccessStatement(ctx.db, ctx.user.ref, input.tableId),
    liveColumnsQuery(ctx.db, input.tableId),
  ]);
  const { table } = checkTableAccess(tableRow, "read");
  const compiled = compileQuery(ctx, table, columnList, input.query);
  return runQuery(ctx, { tableId: table.id, columns: columnList, compiled, query: input.query });
}
