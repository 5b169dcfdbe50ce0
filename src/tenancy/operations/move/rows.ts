// Reading, writing, hashing and deleting one logical shard's rows of a D1 database, table by table: the parts of a
// shard move (./shardMove.ts, docs/scaling.md "Moving a logical shard") that touch rows. Every statement stays under D1's
// 100 bound parameters and every D1 call handles at most one page of rows.
import { getTableConfig, SQLiteColumn, SQLiteTable } from "drizzle-orm/sqlite-core";
import { is } from "drizzle-orm";
import * as shardSchema from "../../../db/schema/shard";
import { idempotencyKeys } from "../../../db/schema/copies";
import {
  CLAIMS_KEY_COLUMN,
  shardKeyOf,
  shardCondition,
  shardTablesInCopyOrder,
  type ShardTable,
} from "../../kernel/keys";

/** D1's limit of bound parameters per statement. */
export const MAX_PARAMS = 100;
export const DEFAULT_BATCH_ROWS = 500;

export interface TableReport {
  table: string;
  rows: number;
  /** SHA-256 (hex) over the rows' SQL values (quote()), one JSON array per row, in key order. */
  checksum: string;
}

export interface TableShape {
  name: string;
  columns: string[];
  /** The order rows are read, paged and hashed in: the primary key, else a unique key (configOf). */
  order: string[];
  key: string;
}

/**
 * A table's columns and the columns its rows are read and hashed in order of: its primary key, else its first
 * unique index on plain NOT NULL columns (every shard table has one or the other: moveShapes() throws otherwise, and test/shared/shard-move.test.ts calls it).
 */
export function configOf(table: SQLiteTable) {
  const config = getTableConfig(table);
  const columns = config.columns.map((c) => c.name);
  const pk =
    config.primaryKeys[0]?.columns.map((c) => c.name) ?? config.columns.filter((c) => c.primary).map((c) => c.name);
  const unique = config.indexes.find(
    (i) => i.config.unique && !i.config.where && i.config.columns.every((c) => is(c, SQLiteColumn) && c.notNull),
  );
  const order = pk.length ? pk : (unique?.config.columns.map((c) => (c as SQLiteColumn).name) ?? []);
  return { config, columns, order };
}

export const shardTables = new Map<string, SQLiteTable>(
  Object.values<unknown>(shardSchema)
    .filter((v): v is SQLiteTable => is(v, SQLiteTable))
    .map((t) => [getTableConfig(t).name, t]),
);

function shapeOf(name: ShardTable): TableShape {
  const { columns, order } = configOf(shardTables.get(name)!);
  if (!order.length)
    throw new Error(`${name} has neither a primary key nor a unique index on NOT NULL columns to page by`);
  return { name, columns, order, key: shardKeyOf(name) };
}

/** The search index's entries as a move sees them: `id` is local to each database, the scopes are generated. */
export const SEARCH: TableShape = {
  name: "search_entries",
  columns: ["record_id", "kind", "title", "body", "workspace_id", "project_id", "document_id", "row_id", "live"],
  order: ["record_id"],
  key: "record_id",
};

export const q = (name: string) => `"${name}"`;

/**
 * The rows of `shape` on `logical`, a page at a time in key order, as arrays of the selected values. Pages follow
 * the key (a row-value comparison with the last row's key), not an OFFSET, so a table is read in one pass however
 * many pages it takes.
 */
export async function* pages(
  db: D1Database,
  shape: TableShape,
  logical: number,
  pageRows: number,
  select = (c: string) => q(c),
) {
  const cond = shardCondition(shape.key, logical);
  const keys = shape.order.map(q).join(", ");
  const head = `SELECT ${shape.columns.map(select).join(", ")}, ${keys} FROM ${q(shape.name)} WHERE ${cond.sql}`;
  const tail = `ORDER BY ${keys} LIMIT ?`;
  const width = shape.columns.length;
  let last: unknown[] | null = null;
  for (;;) {
    const stmt: D1PreparedStatement = last
      ? db
          .prepare(`${head} AND (${keys}) > (${last.map(() => "?").join(", ")}) ${tail}`)
          .bind(...cond.params, ...last, pageRows)
      : db.prepare(`${head} ${tail}`).bind(...cond.params, pageRows);
    const rows: unknown[][] = await stmt.raw<unknown[]>();
    if (rows.length) yield rows.map((r) => r.slice(0, width));
    if (rows.length < pageRows) return;
    last = rows[rows.length - 1]!.slice(width);
  }
}

/** Multi-row INSERTs of `rows` into `table`, each statement under D1's 100 bound parameters. */
export function insertStatements(
  db: D1Database,
  table: string,
  columns: string[],
  rows: unknown[][],
  conflict: string,
): D1PreparedStatement[] {
  const perStatement = Math.max(1, Math.floor(MAX_PARAMS / columns.length));
  const out: D1PreparedStatement[] = [];
  for (let i = 0; i < rows.length; i += perStatement) {
    const chunk = rows.slice(i, i + perStatement);
    const tuple = `(${columns.map(() => "?").join(", ")})`;
    out.push(
      db
        .prepare(
          `INSERT INTO ${q(table)} (${columns.map(q).join(", ")}) VALUES ${chunk.map(() => tuple).join(", ")} ${conflict}`,
        )
        .bind(...chunk.flat()),
    );
  }
  return out;
}

/**
 * Row count and checksum of a table's rows on `logical`. The values are read through quote(), SQLite's own literal
 * form, so an integer and its text, or a real rounded on its way through JavaScript, hash differently: the check is
 * independent of how the copy carried the values.
 */
export async function digestShardTable(
  db: D1Database,
  shape: TableShape,
  logical: number,
  pageRows = DEFAULT_BATCH_ROWS,
): Promise<TableReport> {
  const stream = new crypto.DigestStream("SHA-256");
  const writer = stream.getWriter();
  const encoder = new TextEncoder();
  let rows = 0;
  for await (const page of pages(db, shape, logical, pageRows, (c) => `quote(${q(c)})`)) {
    rows += page.length;
    await writer.write(encoder.encode(page.map((r) => JSON.stringify(r)).join("\n") + "\n"));
  }
  await writer.close();
  const checksum = [...new Uint8Array(await stream.digest)].map((b) => b.toString(16).padStart(2, "0")).join("");
  return { table: shape.name, rows, checksum };
}

/**
 * The Idempotency-Key claims of a logical shard's requests (docs/scaling.md "Idempotency-Keys"): a directory table
 * each shard keeps a copy of (copies.ts), whose rows name their logical shard by number. Last in copy order, so the
 * requests that claimed them while the shard went read-only have met the fence before their claims are copied.
 */
export const CLAIMS: TableShape = {
  name: "idempotency_keys",
  columns: configOf(idempotencyKeys).columns,
  order: ["user_id", "key"],
  key: CLAIMS_KEY_COLUMN,
};

/** The shard tables (copy order) with the claims last, and the search entries, as the digest and copy see them. */
export function moveShapes(): { tables: TableShape[]; search: TableShape } {
  return { tables: [...shardTablesInCopyOrder().map(shapeOf), CLAIMS], search: SEARCH };
}

/**
 * A batch of the move's own writes (copying a fenced shard's rows in, deleting its old copy): a row in shard_mover
 * for the length of the batch, which the fence's triggers let through (the shard baseline, migrations/shard/0000). A D1 batch is one
 * transaction, so no other write ever sees the row. Returns the results of `statements`.
 */
export async function asMover(db: D1Database, statements: D1PreparedStatement[]): Promise<D1Result[]> {
  const results = await db.batch([
    db.prepare(`INSERT OR REPLACE INTO shard_mover (id) VALUES (1)`),
    ...statements,
    db.prepare(`DELETE FROM shard_mover`),
  ]);
  return results.slice(1, -1);
}

/**
 * Deletes (as the mover) up to `chunk` rows of `shape` on `logical` after rowid `after`: how many went, and the last
 * rowid deleted, or null once none is left after it.
 */
export async function deleteChunk(
  db: D1Database,
  shape: TableShape,
  logical: number,
  after: number,
  chunk: number,
): Promise<{ last: number | null; gone: number }> {
  const cond = shardCondition(shape.key, logical);
  const sql = `DELETE FROM ${q(shape.name)} WHERE rowid IN (SELECT rowid FROM ${q(shape.name)} WHERE ${cond.sql} AND rowid > ? ORDER BY rowid LIMIT ?) RETURNING rowid AS gone`;
  const [result] = await asMover(db, [db.prepare(sql).bind(...cond.params, after, chunk)]);
  const gone = (result!.results as { gone: number }[]).map((r) => r.gone);
  return { last: gone.length < chunk ? null : Math.max(...gone), gone: gone.length };
}

/** Rowids the database assigns are positive: a walk in rowid order starts after this. */
export const BEFORE_ANY_ROWID = Number.MIN_SAFE_INTEGER;

/**
 * Deletes the rows of `shape` on `logical`, at most `chunk` per D1 call, walking the table once in rowid order
 * (each call starts after the last rowid it deleted); returns how many.
 */
export async function deleteRows(db: D1Database, shape: TableShape, logical: number, chunk: number): Promise<number> {
  let total = 0;
  for (let after: number | null = BEFORE_ANY_ROWID; after !== null;) {
    const step = await deleteChunk(db, shape, logical, after, chunk);
    total += step.gone;
    after = step.last;
  }
  return total;
}

/**
 * deleteShardRows within at most `maxCalls` D1 calls: `done` once no row of `logical` is left. Each call first asks,
 * in one batch, which tables still hold rows of the shard, then deletes from those, children first; a caller repeats
 * it, with the same arguments, until done — the old copy of a shard too large for one invocation's D1 calls goes over
 * several.
 */
export async function deleteShardRowsWithin(
  db: D1Database,
  logical: number,
  chunk: number,
  maxCalls: number,
): Promise<{ deleted: number; done: boolean }> {
  const shapes = shardDeleteOrder();
  // Which tables still hold rows of the shard, in one call, so the budget goes to deleting.
  const present = await db.batch<{ present: number }>(
    shapes.map((shape) => {
      const cond = shardCondition(shape.key, logical);
      return db
        .prepare(`SELECT EXISTS (SELECT 1 FROM ${q(shape.name)} WHERE ${cond.sql}) AS present`)
        .bind(...cond.params);
    }),
  );
  let deleted = 0;
  let calls = 1;
  for (const [i, shape] of shapes.entries()) {
    if (present[i]!.results[0]?.present !== 1) continue;
    for (let after: number | null = BEFORE_ANY_ROWID; after !== null; calls++) {
      if (calls >= maxCalls) return { deleted, done: false };
      const step = await deleteChunk(db, shape, logical, after, chunk);
      deleted += step.gone;
      after = step.last;
    }
  }
  return { deleted, done: true };
}

/**
 * Deletes every row of `logical` from `db` — children first (the reverse copy order), then its search entries,
 * whose FTS5 rows go with them through search_entries' delete trigger (deleting documents and rows already takes
 * their entries through their own delete triggers; this pass takes any left). Returns the rows deleted per table.
 */
export async function deleteShardRows(db: D1Database, logical: number, chunk: number): Promise<Record<string, number>> {
  const deleted: Record<string, number> = {};
  for (const shape of shardDeleteOrder()) deleted[shape.name] = await deleteRows(db, shape, logical, chunk);
  return deleted;
}

/** The order a shard's rows are deleted in: the tables children first (the reverse copy order), then the search entries. */
export function shardDeleteOrder(): TableShape[] {
  const { tables, search } = moveShapes();
  return [...[...tables].reverse(), search];
}
