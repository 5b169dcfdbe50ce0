/**
 * Reading rows (docs/api-guide.md › Tables, columns, rows, cells): pages of a table's live rows keyset-paged on
 * (seq, id), rows by id across tables, one row with or without its values. Values come back by column id for
 * every live column, oneMany columns computed. Writes are in ./rows.ts.
 */
import { and, asc, eq, sql, type SQL } from "drizzle-orm";
import { columns, rows } from "../../db/schema";
import type { Db } from "../../env";
import { notFound, validation } from "../../errors";
import { ID_PATTERN } from "../../lib/ids";
import { textFromBase64Url, textToBase64Url } from "../../lib/base64";
import { inJson } from "../../db/sql";
import { checkTableAccess, tableAccessStatement } from "../../auth/tableAccess";
import { read, type ServiceContext } from "../context";
import { columnType } from "./cellValues";
import { liveColumnsQuery } from "./columns";
import { fillOneManyValues, type RowValues } from "./relations";
import { rowDto, type ColumnRow, type RowRow, type TableRow } from "./serialize";

export const MAX_PAGE_SIZE = 1000;
export const DEFAULT_PAGE_SIZE = 100;

/** The row's stored values (all of them, or the live ones) as one JSON object, computed in the query (one row per row, not per cell). */
export const cellsJson = sql<
  string | null
>`(SELECT json_group_object(c.column_id, json(c.data)) FROM cells c WHERE c.row_id = "rows"."id")`;
const liveCellsJson = sql<
  string | null
>`(SELECT json_group_object(c.column_id, json(c.data)) FROM cells c WHERE c.row_id = "rows"."id" AND c.is_deleted = 0)`;

/** The row's live comments and those of them in open threads (docs/api-guide.md › Comments), as `[n, open]`. */
export const commentCounts = sql<string>`(SELECT json_array(COUNT(*), COALESCE(SUM(k.status = 'open'), 0)) FROM comments k
  WHERE k.row_id = "rows"."id" AND k.is_deleted = 0)`;

function parseCells(json: string | null): Record<string, unknown> {
  return json ? (JSON.parse(json) as Record<string, unknown>) : {};
}

/**
 * `{ [columnId]: value }` for every live column, in column order: the stored value (null when none) or, for
 * oneMany columns, the computed related row ids. Mutates nothing it was given.
 */
async function cellValuesOfRows(
  ctx: ServiceContext,
  columnList: readonly ColumnRow[],
  stored: readonly RowValues[],
): Promise<Record<string, unknown>[]> {
  const out: RowValues[] = stored.map((r) => {
    const cells: Record<string, unknown> = {};
    for (const col of columnList) cells[col.id] = columnType(col) === "oneMany" ? [] : (r.cells[col.id] ?? null);
    return { id: r.id, cells };
  });
  await fillOneManyValues(ctx, { columns: columnList.filter((c) => columnType(c) === "oneMany"), rows: out });
  return out.map((r) => r.cells);
}

export interface RowsPage {
  data: (ReturnType<typeof rowDto> & {
    commentCount: number;
    openCommentCount: number;
    cells: Record<string, unknown>;
  })[];
  nextCursor: string | null;
}

/** Opaque to clients: the (seq, id) of the last row of the page, base64url. */
export function encodeCursor(seq: number, id: string): string {
  return textToBase64Url(`${seq}:${id}`);
}

export function decodeCursor(cursor: string): { seq: number; id: string } {
  const bad = () =>
    validation("cursor is not a cursor this listing returned", [{ path: "cursor", message: "invalid cursor" }]);
  const m = /^(\d{1,15}):(.+)$/.exec(textFromBase64Url(cursor) ?? "");
  if (!m || !ID_PATTERN.test(m[2]!)) throw bad();
  return { seq: Number(m[1]), id: m[2]! };
}

/** Up to `limit + 1` live rows after the cursor position (the extra one tells whether another page follows). */
function rowPageQuery(db: Db, tableId: string, after: { seq: number; id: string }, limit: number) {
  return db
    .select({ row: rows, cells: cellsJson, comments: commentCounts })
    .from(rows)
    .where(
      and(
        eq(rows.tableId, tableId),
        eq(rows.isDeleted, false),
        sql`(${rows.seq}, ${rows.id}) > (${after.seq}, ${after.id})`,
      ),
    )
    .orderBy(rows.seq, rows.id)
    .limit(limit + 1);
}

/** One page as listRowsOfTable gives it, for a caller that checked read access already (a CSV export's pages). */
export async function readRowsPage(
  ctx: ServiceContext,
  input: { table: TableRow; limit: number; cursor?: string },
): Promise<RowsPage> {
  const after = input.cursor ? decodeCursor(input.cursor) : { seq: -1, id: "" };
  const [columnList, page] = await ctx.db.batch([
    liveColumnsQuery(ctx.db, input.table.id),
    rowPageQuery(ctx.db, input.table.id, after, input.limit),
  ]);
  return assemblePage(ctx, columnList, page, input.limit);
}

/**
 * GET /table/{tableId}/rows: one page of live rows in commit order, keyset-paged on (seq, id): rows added while a
 * client pages land after every cursor already handed out, so nothing is skipped or repeated. Access, columns and
 * the page in one batch with authentication; a second round trip only when the table has oneMany columns (their
 * targets).
 */
export async function listRowsOfTable(
  ctx: ServiceContext,
  input: { tableId: string; limit: number; cursor?: string },
): Promise<RowsPage> {
  const after = input.cursor ? decodeCursor(input.cursor) : { seq: -1, id: "" };
  const [[tableRow], columnList, page] = await read(ctx, [
    tableAccessStatement(ctx.db, ctx.user.ref, input.tableId),
    liveColumnsQuery(ctx.db, input.tableId),
    rowPageQuery(ctx.db, input.tableId, after, input.limit),
  ]);
  checkTableAccess(tableRow, "read");
  return assemblePage(ctx, columnList, page, input.limit);
}

/** A page of `page` rows (limit + 1 read) with every live column's value; shared with the query (./query/query.ts). */
export async function assemblePage(
  ctx: ServiceContext,
  columnList: ColumnRow[],
  page: { row: RowRow; cells: string | null; comments: string }[],
  limit: number,
): Promise<RowsPage> {
  const more = page.length > limit;
  const pageRows = more ? page.slice(0, limit) : page;
  const values = await cellValuesOfRows(
    ctx,
    columnList,
    pageRows.map((p) => ({ id: p.row.id, cells: parseCells(p.cells) })),
  );
  const last = pageRows[pageRows.length - 1];
  return {
    data: pageRows.map((p, i) => {
      const [commentCount, openCommentCount] = JSON.parse(p.comments) as [number, number];
      return { ...rowDto(p.row), commentCount, openCommentCount, cells: values[i]! };
    }),
    nextCursor: more && last ? encodeCursor(last.row.seq, last.row.id) : null,
  };
}

/**
 * Live rows of any tables by id, each with `{ [columnId]: value }` of its own table (oneMany computed), in a
 * fixed number of D1 round trips however many ids and tables: rows and the columns of their tables in one
 * batch, then one oneMany resolution per table that has oneMany columns. Missing or deleted rows, and rows of
 * deleted tables, are left out.
 */
export async function readRowsAcrossTables(ctx: ServiceContext, rowIds: readonly string[]) {
  const { db } = ctx;
  if (rowIds.length === 0) return new Map<string, ReturnType<typeof rowDto> & { cells: Record<string, unknown> }>();
  const ids = [...new Set(rowIds)];
  const [found, columnList] = await db.batch([
    db
      .select({ row: rows, cells: cellsJson })
      .from(rows)
      .where(
        and(
          eq(rows.isDeleted, false),
          inJson(rows.id, ids),
          sql`${rows.tableId} IN (SELECT id FROM tables WHERE is_deleted = 0)`,
        ),
      )
      .orderBy(rows.seq, rows.id),
    db
      .select()
      .from(columns)
      .where(
        and(
          eq(columns.isDeleted, false),
          sql`${columns.tableId} IN (SELECT table_id FROM rows WHERE ${inJson(sql`id`, ids)})`,
        ),
      )
      .orderBy(asc(columns.id)),
  ]);
  const out = new Map<string, ReturnType<typeof rowDto> & { cells: Record<string, unknown> }>();
  const byTable = new Map<string, typeof found>();
  for (const f of found) byTable.set(f.row.tableId, [...(byTable.get(f.row.tableId) ?? []), f]);
  for (const [tableId, tableRows] of byTable) {
    const tableColumns = columnList.filter((c) => c.tableId === tableId);
    const values = await cellValuesOfRows(
      ctx,
      tableColumns,
      tableRows.map((p) => ({ id: p.row.id, cells: parseCells(p.cells) })),
    );
    tableRows.forEach((p, i) => out.set(p.row.id, { ...rowDto(p.row), cells: values[i]! }));
  }
  return out;
}

/** The body E16 answers with: its ETag, and what If-Match on DELETE is compared with. */
export const rowRepresentation = (row: RowRow) => ({ data: rowDto(row) });

/** A row's table, for the same batch as the row (access statements take it as SQL). */
export const tableOfRow = (rowId: string): SQL => sql`(SELECT table_id FROM rows WHERE id = ${rowId})`;

/** The live row by id, for a batch. */
export function liveRowQuery(db: Db, rowId: string) {
  return db
    .select()
    .from(rows)
    .where(and(eq(rows.id, rowId), eq(rows.isDeleted, false)));
}

/** E16: a live row of a readable table (404 alike for missing, deleted and unreadable). One round trip. */
export async function getRow(ctx: ServiceContext, { rowId }: { rowId: string }) {
  const [[row], [tableRow]] = await read(ctx, [
    liveRowQuery(ctx.db, rowId),
    tableAccessStatement(ctx.db, ctx.user.ref, tableOfRow(rowId)),
  ]);
  if (!row) throw notFound("Row");
  checkTableAccess(tableRow, "read", { as: "Row" });
  return rowDto(row);
}

/**
 * A row in any state (an automation's triggering row may be deleted by now) with its stored values by column id;
 * null when there is none. Its table must be readable (404 alike otherwise).
 */
export async function getRowInAnyState(
  ctx: ServiceContext,
  rowId: string,
): Promise<{ row: RowRow; cells: Record<string, unknown> } | null> {
  const [[found], [tableRow]] = await read(ctx, [
    ctx.db.select({ row: rows, cells: liveCellsJson }).from(rows).where(eq(rows.id, rowId)),
    tableAccessStatement(ctx.db, ctx.user.ref, tableOfRow(rowId)),
  ]);
  if (!found) return null;
  checkTableAccess(tableRow, "read", { as: "Row" });
  return { row: found.row, cells: parseCells(found.cells) };
}
