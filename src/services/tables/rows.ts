/**
 * Rows and their cell values. Writes of many rows are one D1 batch of a few statements (rows, then cells in
 * chunks under D1's value-size limit), each an INSERT … SELECT over json_each(?) — never a statement per cell —
 * so 1000 rows commit or fail together. Reads return values by column id for every live column.
 */
import { and, asc, eq, sql, type SQL } from "drizzle-orm";
import { columns, rows } from "../../db/schema";
import type { Db } from "../../env";
import { ApiError, notFound, validation } from "../../errors";
import { ID_PATTERN } from "../../lib/ids";
import type { ExpectedVersion } from "../../lib/etag";
import { assertExpectedVersion } from "../preconditions";
import { textFromBase64Url, textToBase64Url } from "../../lib/base64";
import { d1Of } from "../../db/d1";
import { inJson } from "../../db/sql";
import { checkTableAccess, tableAccessStatement } from "../../auth/access";
import { read, type ServiceContext } from "../context";
import { keptAnswerStatements } from "../idempotency";
import { emitAfterResponse, rowEvent } from "../events/events";
import type { StoredCell } from "../formula/engine";
import { checkCellWrites, columnType } from "./cellValues";
import { liveColumnsQuery } from "./columns";
import { recalculateFormulasAfterWrite, recalculateLookupsReading } from "./recompute";
import { fillOneManyValues, type RowValues } from "./relations";
import { cellDto, rowDto, type CellRow, type ColumnRow, type RowRow, type TableRow } from "./serialize";
import { idsBeside } from "../../db/shardIds";

export const MAX_BULK_ROWS = 1000;
export const MAX_PAGE_SIZE = 1000;
export const DEFAULT_PAGE_SIZE = 100;
/** Bytes of cell JSON per INSERT statement; D1 caps one bound value at 2 MB. */
const CELL_CHUNK_BYTES = 1_000_000;

const INSERT_ROWS = `INSERT INTO rows (id, table_id, project_id, workspace_id, owner_id, origin_id, seq, is_deleted, created_at, updated_at)
  SELECT j.value, ?1, ?2, ?3, ?4, '', (SELECT COALESCE(MAX(seq), 0) FROM rows WHERE table_id = ?1) + j.key + 1, 0, ?5, ?5
  FROM json_each(?6) j
  WHERE EXISTS (SELECT 1 FROM tables t WHERE t.id = ?1 AND t.is_deleted = 0)`;

const INSERT_CELLS = `INSERT INTO cells (id, table_id, row_id, column_id, workspace_id, origin_id, is_identifier, data, is_deleted, created_at, updated_at)
  SELECT j.value ->> 0, ?1, j.value ->> 1, j.value ->> 2, ?2, '', j.value ->> 3, j.value -> 4, 0, ?3, ?3
  FROM json_each(?4) j
  WHERE EXISTS (SELECT 1 FROM rows r WHERE r.id = j.value ->> 1)`;

/** Undoes a create whose table was deleted before its formulas were computed (the rows were never shown). */
const DELETE_CREATED_CELLS = `DELETE FROM cells WHERE table_id = ?1 AND row_id IN (SELECT value FROM json_each(?2))`;
const DELETE_CREATED_ROWS = `DELETE FROM rows WHERE table_id = ?1 AND id IN (SELECT value FROM json_each(?2))`;

export interface CreatedRows {
  rows: RowRow[];
  /** Per row, the values stored by this write (columns without a value are absent). */
  written: Record<string, unknown>[];
  /** Per row, the Cell records this write stored. */
  cells: CellRow[][];
  /** Per row id, every formula column's value as computed in this request (null when blank). */
  formulaCells: Record<string, Record<string, unknown>>;
  /** With `returnCells`: the stored formula Cell records of the new rows after recalculation. */
  formulaCellRecords: StoredCell[];
}

/**
 * Validates every row's cells (400 listing the problems, 409 for computed columns: nothing is written), then
 * writes all rows and cells in one atomic D1 batch and runs the formula hook for the new rows.
 */
export async function insertRows(
  ctx: ServiceContext,
  opts: {
    /** A table the caller may write (checked in the caller's batch), and each row's values by column id. */
    table: TableRow;
    rows: readonly (Record<string, unknown> | undefined)[];
    pathOf?: (index: number) => string;
    columns?: ColumnRow[];
    returnCells?: boolean;
    /** Statements that commit with the rows (a keyed request's answer, services/idempotency.ts keptAnswerStatements). */
    keep?: (created: { rows: RowRow[]; cells: CellRow[][]; written: Record<string, unknown>[] }, d1: D1Database) => Promise<D1PreparedStatement[]>;
  },
): Promise<CreatedRows> {
  const { table, rows: inputs } = opts;
  const columnList = opts.columns ?? (await liveColumnsQuery(ctx.db, table.id));
  const columnsById = new Map(columnList.map((c) => [c.id, c]));
  const writes = checkCellWrites(columnsById, inputs, opts.pathOf ?? ((i) => `rows.${i}.cells`));
  const t = ctx.now;
  const newId = idsBeside(table.id);
  const newRows: RowRow[] = writes.map(() => ({
    id: newId(),
    tableId: table.id,
    projectId: table.projectId,
    workspaceId: table.workspaceId,
    ownerId: ctx.user.id,
    originId: "",
    seq: 0,
    isDeleted: false,
    createdAt: t,
    updatedAt: t,
  }));
  const cellRecords: CellRow[][] = writes.map((ws, i) =>
    ws.map((w) => ({
      id: newId(),
      tableId: table.id,
      rowId: newRows[i]!.id,
      columnId: w.column.id,
      workspaceId: table.workspaceId,
      originId: "",
      isIdentifier: w.column.isIdentifier,
      data: w.value,
      isDeleted: false,
      createdAt: t,
      updatedAt: t,
    })),
  );
  // The request's own D1 session (counted, bookmarked) — the same database the Drizzle client reaches.
  const d1 = d1Of(ctx.db);
  const written = writes.map((ws) => Object.fromEntries(ws.map((w) => [w.column.id, w.value])));
  const statements = [
    d1.prepare(INSERT_ROWS).bind(table.id, table.projectId, table.workspaceId, ctx.user.id, t, JSON.stringify(newRows.map((r) => r.id))),
    ...cellChunks(cellRecords.flat()).map((chunk) => d1.prepare(INSERT_CELLS).bind(table.id, table.workspaceId, t, chunk)),
    ...(opts.keep ? await opts.keep({ rows: newRows, cells: cellRecords, written }, d1) : []),
  ];
  // The rows are inserted only while the table is live, the cells only with their rows (the same statements):
  // a delete of the table that ran first leaves nothing written, and the answer is 404.
  const [insertedRows] = await d1.batch(statements);
  if (newRows.length > 0 && (insertedRows?.meta.changes ?? 0) === 0) throw notFound("Table");
  const rowIds = newRows.map((r) => r.id);
  let computed: Awaited<ReturnType<typeof recalculateFormulasAfterWrite>>;
  try {
    computed = await recalculateFormulasAfterWrite(ctx.env, table.id, rowIds, { returnCells: opts.returnCells });
  } catch (err) {
    // The table was deleted between the insert and the recomputation: a create that answers an error leaves
    // nothing behind, so the rows it inserted go again (they were never visible: every read joins the live table).
    if (err instanceof ApiError && err.code === "NotFoundError") {
      await d1.batch([d1.prepare(DELETE_CREATED_CELLS).bind(table.id, JSON.stringify(rowIds)), d1.prepare(DELETE_CREATED_ROWS).bind(table.id, JSON.stringify(rowIds))]);
    }
    throw err;
  }
  return {
    rows: newRows,
    written,
    cells: cellRecords,
    formulaCells: computed.formulaCells,
    formulaCellRecords: computed.formulaCellRecords ?? [],
  };
}

/** `[cellId, rowId, columnId, isIdentifier, value]` entries as JSON arrays, split so no chunk passes CELL_CHUNK_BYTES. */
function cellChunks(records: readonly CellRow[]): string[] {
  const encoder = new TextEncoder();
  const chunks: string[] = [];
  let parts: string[] = [];
  let bytes = 2;
  for (const w of records) {
    const entry = JSON.stringify([w.id, w.rowId, w.columnId, w.isIdentifier ? 1 : 0, w.data]);
    const size = encoder.encode(entry).length + 1;
    if (parts.length && bytes + size > CELL_CHUNK_BYTES) {
      chunks.push(`[${parts.join(",")}]`);
      parts = [];
      bytes = 2;
    }
    parts.push(entry);
    bytes += size;
  }
  if (parts.length) chunks.push(`[${parts.join(",")}]`);
  return chunks;
}

/** The row's stored values (all of them, or the live ones) as one JSON object, computed in the query (one row per row, not per cell). */
const cellsJson = sql<string | null>`(SELECT json_group_object(c.column_id, json(c.data)) FROM cells c WHERE c.row_id = "rows"."id")`;
const liveCellsJson = sql<string | null>`(SELECT json_group_object(c.column_id, json(c.data)) FROM cells c WHERE c.row_id = "rows"."id" AND c.is_deleted = 0)`;

function parseCells(json: string | null): Record<string, unknown> {
  return json ? (JSON.parse(json) as Record<string, unknown>) : {};
}

/**
 * `{ [columnId]: value }` for every live column, in column order: the stored value (null when none) or, for
 * oneMany columns, the computed related row ids. Mutates nothing it was given.
 */
async function cellValuesOfRows(ctx: ServiceContext, columnList: readonly ColumnRow[], stored: readonly RowValues[]): Promise<Record<string, unknown>[]> {
  const out: RowValues[] = stored.map((r) => {
    const cells: Record<string, unknown> = {};
    for (const col of columnList) cells[col.id] = columnType(col) === "oneMany" ? [] : (r.cells[col.id] ?? null);
    return { id: r.id, cells };
  });
  await fillOneManyValues(ctx, { columns: columnList.filter((c) => columnType(c) === "oneMany"), rows: out });
  return out.map((r) => r.cells);
}

export interface RowsPage {
  data: (ReturnType<typeof rowDto> & { cells: Record<string, unknown> })[];
  nextCursor: string | null;
}

/** Opaque to clients: the (seq, id) of the last row of the page, base64url. */
export function encodeCursor(seq: number, id: string): string {
  return textToBase64Url(`${seq}:${id}`);
}

export function decodeCursor(cursor: string): { seq: number; id: string } {
  const bad = () => validation("cursor is not a cursor this listing returned", [{ path: "cursor", message: "invalid cursor" }]);
  const m = /^(\d{1,15}):(.+)$/.exec(textFromBase64Url(cursor) ?? "");
  if (!m || !ID_PATTERN.test(m[2]!)) throw bad();
  return { seq: Number(m[1]), id: m[2]! };
}

/** Up to `limit + 1` live rows after the cursor position (the extra one tells whether another page follows). */
function rowPageQuery(db: Db, tableId: string, after: { seq: number; id: string }, limit: number) {
  return db
    .select({ row: rows, cells: cellsJson })
    .from(rows)
    .where(and(eq(rows.tableId, tableId), eq(rows.isDeleted, false), sql`(${rows.seq}, ${rows.id}) > (${after.seq}, ${after.id})`))
    .orderBy(rows.seq, rows.id)
    .limit(limit + 1);
}

/** One page as listRowsOfTable gives it, for a caller that checked read access already (a CSV export's pages). */
export async function readRowsPage(ctx: ServiceContext, input: { table: TableRow; limit: number; cursor?: string }): Promise<RowsPage> {
  const after = input.cursor ? decodeCursor(input.cursor) : { seq: -1, id: "" };
  const [columnList, page] = await ctx.db.batch([liveColumnsQuery(ctx.db, input.table.id), rowPageQuery(ctx.db, input.table.id, after, input.limit)]);
  return assemblePage(ctx, columnList, page, input.limit);
}

/**
 * GET /table/{tableId}/rows: one page of live rows in commit order, keyset-paged on (seq, id): rows added while a
 * client pages land after every cursor already handed out, so nothing is skipped or repeated. Access, columns and
 * the page in one batch with authentication; a second round trip only when the table has oneMany columns (their
 * targets).
 */
export async function listRowsOfTable(ctx: ServiceContext, input: { tableId: string; limit: number; cursor?: string }): Promise<RowsPage> {
  const after = input.cursor ? decodeCursor(input.cursor) : { seq: -1, id: "" };
  const [[tableRow], columnList, page] = await read(ctx, [
    tableAccessStatement(ctx.db, ctx.user.ref, input.tableId),
    liveColumnsQuery(ctx.db, input.tableId),
    rowPageQuery(ctx.db, input.tableId, after, input.limit),
  ]);
  checkTableAccess(tableRow, "read");
  return assemblePage(ctx, columnList, page, input.limit);
}

async function assemblePage(ctx: ServiceContext, columnList: ColumnRow[], page: { row: RowRow; cells: string | null }[], limit: number): Promise<RowsPage> {
  const more = page.length > limit;
  const pageRows = more ? page.slice(0, limit) : page;
  const values = await cellValuesOfRows(ctx, columnList, pageRows.map((p) => ({ id: p.row.id, cells: parseCells(p.cells) })));
  const last = pageRows[pageRows.length - 1];
  return {
    data: pageRows.map((p, i) => ({ ...rowDto(p.row), cells: values[i]! })),
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
    const values = await cellValuesOfRows(ctx, tableColumns, tableRows.map((p) => ({ id: p.row.id, cells: parseCells(p.cells) })));
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
  return db.select().from(rows).where(and(eq(rows.id, rowId), eq(rows.isDeleted, false)));
}

/** E16: a live row of a readable table (404 alike for missing, deleted and unreadable). One round trip. */
export async function getRow(ctx: ServiceContext, rowId: string) {
  const [[row], [tableRow]] = await read(ctx, [liveRowQuery(ctx.db, rowId), tableAccessStatement(ctx.db, ctx.user.ref, tableOfRow(rowId))]);
  if (!row) throw notFound("Row");
  checkTableAccess(tableRow, "read", { as: "Row" });
  return rowDto(row);
}

/** Soft-deletes a row (its cells vanish); `expected` is compared with the row's E16 representation (412, nothing changed). */
export async function deleteRow(ctx: ServiceContext, input: { rowId: string; expected?: ExpectedVersion }): Promise<{ row: RowRow; table: TableRow }> {
  const [[row], [tableRow]] = await read(ctx, [liveRowQuery(ctx.db, input.rowId), tableAccessStatement(ctx.db, ctx.user.ref, tableOfRow(input.rowId))]);
  if (!row) throw notFound("Row");
  const { table } = checkTableAccess(tableRow, "write", { as: "Row" });
  await assertExpectedVersion(input.expected, () => rowRepresentation(row));
  await softDeleteRows(ctx, table, [row.id]);
  return { row, table };
}

/** Soft-deletes live rows of one table (an automation's row.delete): their cells vanish, one row.deleted event each. */
export async function deleteRows(ctx: ServiceContext, input: { tableId: string; rowIds: readonly string[] }): Promise<{ table: TableRow }> {
  const [[tableRow]] = await read(ctx, [tableAccessStatement(ctx.db, ctx.user.ref, input.tableId)]);
  const { table } = checkTableAccess(tableRow, "write");
  await softDeleteRows(ctx, table, input.rowIds);
  return { table };
}

async function softDeleteRows(ctx: ServiceContext, table: TableRow, rowIds: readonly string[]) {
  if (rowIds.length === 0) return;
  await ctx.db.update(rows).set({ isDeleted: true, updatedAt: ctx.now }).where(and(eq(rows.tableId, table.id), inJson(rows.id, rowIds)));
  // Lookups in other tables that listed these rows are recomputed before the answer.
  await recalculateLookupsReading(ctx.env, table.id);
  emitAfterResponse(ctx, rowIds.map((id) => rowEvent("row.deleted", table, id)));
}

/**
 * A row in any state (an automation's triggering row may be deleted by now) with its stored values by column id;
 * null when there is none. Its table must be readable (404 alike otherwise).
 */
export async function getRowInAnyState(ctx: ServiceContext, rowId: string): Promise<{ row: RowRow; cells: Record<string, unknown> } | null> {
  const [[found], [tableRow]] = await read(ctx, [
    ctx.db.select({ row: rows, cells: liveCellsJson }).from(rows).where(eq(rows.id, rowId)),
    tableAccessStatement(ctx.db, ctx.user.ref, tableOfRow(rowId)),
  ]);
  if (!found) return null;
  checkTableAccess(tableRow, "read", { as: "Row" });
  return { row: found.row, cells: parseCells(found.cells) };
}

/** Access and the table's live columns in one batch: what row creation checks values against. */
async function writableTableWithColumns(ctx: ServiceContext, tableId: string) {
  const [[tableRow], columnList] = await read(ctx, [tableAccessStatement(ctx.db, ctx.user.ref, tableId), liveColumnsQuery(ctx.db, tableId)]);
  return { table: checkTableAccess(tableRow, "write").table, columns: columnList };
}

function sortByColumn<T extends { columnId: string }>(list: T[]): T[] {
  return list.sort((a, b) => (a.columnId < b.columnId ? -1 : a.columnId > b.columnId ? 1 : 0));
}

/**
 * POST /table/{tableId}/row: the row and the Cell records stored for it — the client's values and the formula
 * cells computed in this request (issue 14), by column id. Three D1 round trips with authentication; the
 * recalculation runs in the table's formula coordinator.
 */
export async function createRow(
  ctx: ServiceContext,
  input: { tableId: string; cells?: Record<string, unknown>; /** Where `cells` is in the caller's input, for error details. */ cellsPath?: string },
) {
  const { table, columns: columnList } = await writableTableWithColumns(ctx, input.tableId);
  const created = await insertRows(ctx, {
    table, rows: [input.cells], columns: columnList, returnCells: true,
    pathOf: () => input.cellsPath ?? "cells",
    // A crash before the answer leaves this one (the row and the values given; formula cells come with the final answer).
    keep: (c, d1) => keptAnswerStatements(ctx, { d1, payload: { data: { row: rowDto(c.rows[0]!), cells: sortByColumn(c.cells[0]!).map(cellDto) } } }),
  });
  const row = created.rows[0]!;
  emitAfterResponse(ctx, [rowEvent("row.created", table, row.id, Object.keys(input.cells ?? {}))]);
  const stored = sortByColumn([...created.cells[0]!, ...created.formulaCellRecords.filter((c) => c.rowId === row.id)]);
  return { table, row: rowDto(row), cells: stored.map(cellDto) };
}

/**
 * POST /table/{tableId}/rows: 1–1000 rows, all or nothing; each row's `cells` are the values this call stored
 * plus its formula cells as computed in this request (null when blank).
 */
export async function bulkCreateRows(ctx: ServiceContext, { cellsPath, ...input }: { tableId: string; rows: readonly (Record<string, unknown> | undefined)[]; /** Where every row's `cells` is in the caller's input, when they share one (alike automation actions). */ cellsPath?: string }) {
  const { table, columns: columnList } = await writableTableWithColumns(ctx, input.tableId);
  const created = await insertRows(ctx, {
    table, rows: input.rows, columns: columnList, ...(cellsPath !== undefined && { pathOf: () => cellsPath }),
    // A crash before the answer leaves this one (the values given; formula values come with the final answer).
    keep: (c, d1) => keptAnswerStatements(ctx, { d1, payload: { data: { rows: c.rows.map((r, i) => ({ ...rowDto(r), cells: c.written[i]! })) } } }),
  });
  emitAfterResponse(ctx, created.rows.map((r, i) => rowEvent("row.created", table, r.id, Object.keys(created.written[i] ?? {}))));
  return {
    table,
    rows: created.rows.map((r, i) => ({ ...rowDto(r), cells: { ...created.written[i]!, ...(created.formulaCells[r.id] ?? {}) } })),
    written: created.written,
  };
}
