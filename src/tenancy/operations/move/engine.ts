// Moving one logical shard between two D1 databases, Worker-side (docs/scaling.md "Moving a logical shard"):
// fence the source read-only, copy the shard's rows table by table into the target, verify a row count and a
// checksum per table, switch the fences, and — later, after a grace period — delete the old copy (dropMovedCopy).
//
// Not `wrangler d1 export`: it refuses a database holding FTS5 virtual tables (search_fts) and can leave it busy.
// The copy reads only real tables; the search index is derived data and follows (see copySearchEntries).
// The operator's `npm run shard:move` (POST /admin/shards/move, src/tenancy/operations/moves.ts) runs the same move cut
// into steps of bounded D1 calls (./shardMoveSteps.ts), and also switches the directory's placement; the fence is
// enforced by triggers in every shard table (the shard baseline, migrations/shard/0000). The rows outside the shard
// schema that its rows name (the users) are copied ahead of it by ./shardMoveReferenced.ts.
// This module takes two D1Database handles and knows nothing of bindings beyond their names.
import { readFence, setFenceStatement } from "../../kernel/fence";
import { shardCondition } from "../../kernel/keys";
import { copyReferencedRows } from "./referenced";
import {
  asMover,
  DEFAULT_BATCH_ROWS,
  deleteRows,
  deleteShardRows,
  deleteShardRowsWithin,
  digestShardTable,
  insertStatements,
  moveShapes,
  pages,
  q,
  SEARCH,
  type TableReport,
  type TableShape,
} from "./rows";
import { isLogicalShard } from "../../kernel/map";

export interface MoveReport {
  logical: number;
  from: string;
  to: string;
  /** Each shard table in copy order, as found in both databases after the copy. */
  tables: TableReport[];
  /** The shard's search entries (derived data, carried across and verified the same way). */
  search: TableReport;
  /** Rows of tables outside the shard schema copied because shard rows reference them (see copyReferencedRows). */
  referenced: Record<string, number>;
}

export interface MoveOptions {
  from: D1Database;
  to: D1Database;
  logical: number;
  /** Binding names, recorded in the fences (moved_to) and the report. */
  fromName: string;
  toName: string;
  /** Rows read and written per D1 call (default 500); each statement stays under 100 bound parameters. */
  batchRows?: number;
  /** Called after each table is copied, with its rows copied (progress for the command that runs a move). */
  onCopied?: (table: string, rows: number) => void | Promise<void>;
  /**
   * Switches the map (the directory's placement, src/tenancy/kernel/placements.ts) once the target serves the shard and before
   * the source's fence says it moved; while it runs, the source is still read-only, so no write lands on either.
   */
  switchMap?: () => Promise<void>;
}

/**
 * A move refused before it began (nothing changed), or stopped after (a): then the source is `active` again and
 * the target holds none of the shard's rows.
 */
export class ShardMoveError extends Error {
  constructor(
    message: string,
    readonly mismatches: { table: string; source: TableReport; target: TableReport }[] = [],
  ) {
    super(message);
    this.name = "ShardMoveError";
  }
}

/**
 * The shard's search entries, carried from the source as they are. The target's triggers already made an entry
 * for every copied document (its name) and row (its cells' text), but a document's body comes from its content in
 * R2, written by the service beside its content (src/services/search/index.ts), never by a trigger: only the
 * source's entry has it. So the trigger-made entries are replaced by the source's, which makes the target's index
 * equal to the source's; the FTS5 rows follow through search_entries' delete and insert triggers.
 */
async function copySearchEntries(from: D1Database, to: D1Database, logical: number, pageRows: number): Promise<void> {
  await deleteRows(to, SEARCH, logical, pageRows);
  const columns = SEARCH.columns;
  const update = columns
    .filter((c) => c !== "record_id")
    .map((c) => `${q(c)} = excluded.${q(c)}`)
    .join(", ");
  for await (const page of pages(from, SEARCH, logical, pageRows)) {
    await to.batch(insertStatements(to, SEARCH.name, columns, page, `ON CONFLICT (record_id) DO UPDATE SET ${update}`));
  }
}

/**
 * Step (b): copies every row of `logical` from `from` into `to` — after deleting whatever the target held of it, so
 * a re-run after an interrupted copy starts clean — tables parents first, each read in pages of `batchRows` and
 * written in one D1 batch per page; then the search entries. Exported for the tests, which interrupt a move.
 */
export async function copyShardRows(
  opts: Pick<MoveOptions, "from" | "to" | "logical" | "batchRows" | "onCopied">,
): Promise<Record<string, number>> {
  const { from, to, logical } = opts;
  const pageRows = opts.batchRows ?? DEFAULT_BATCH_ROWS;
  await deleteShardRows(to, logical, pageRows);
  const referenced = await copyReferencedRows(from, to, logical, pageRows);
  const { tables } = moveShapes();
  for (const shape of tables) {
    let rows = 0;
    for await (const page of pages(from, shape, logical, pageRows)) {
      await asMover(to, insertStatements(to, shape.name, shape.columns, page, "ON CONFLICT DO NOTHING"));
      rows += page.length;
    }
    await opts.onCopied?.(shape.name, rows);
  }
  await copySearchEntries(from, to, logical, pageRows);
  return referenced;
}

/**
 * Moves logical shard `logical` from `from` to `to` (docs/scaling.md "Moving a logical shard"):
 * (a) the source's fence goes to `read-only` (guarded writes are refused from then on, reads go on) and the
 *     target's to `moved` → the source, so nothing is served from a half-made copy;
 * (b) copyShardRows;
 * (c) every table's row count and checksum, and the search entries', are compared in both databases; on any
 *     difference (or any error) the target's copy is deleted, the source's fence is `active` again, and a
 *     ShardMoveError (or the error) is thrown;
 * (d) the target's fence goes to `active`, the map is switched (switchMap), then the source's fence goes to `moved` → `toName`.
 * A run that stopped before (d) is re-run from (a); one that stopped between (d)'s two writes is verified again and
 * finished. The source's rows stay until dropMovedCopy (e).
 */
export async function moveLogicalShard(opts: MoveOptions): Promise<MoveReport> {
  const { from, to, logical, fromName, toName } = opts;
  const pageRows = opts.batchRows ?? DEFAULT_BATCH_ROWS;
  if (!isLogicalShard(logical)) throw new RangeError(`not a logical shard: ${logical}`);
  if (from === to || fromName === toName) throw new Error("a move needs two different databases");
  if (!Number.isInteger(pageRows) || pageRows < 1)
    throw new RangeError(`batchRows must be a positive integer: ${pageRows}`);

  const [sourceFence, targetFence] = await Promise.all([readFence(from, logical), readFence(to, logical)]);
  if (sourceFence.state === "moved")
    throw new ShardMoveError(`logical shard ${logical} already left ${fromName} for ${sourceFence.movedTo}`);
  if (targetFence.state === "read-only")
    throw new ShardMoveError(`logical shard ${logical} is being moved out of ${toName}`);
  if (sourceFence.state === "read-only" && (await recordedState(to, logical)) === "active") {
    // An earlier run stopped inside (d): the target went active after its copy was verified, the source never
    // left read-only, so the copy still holds every write. Verify again and finish.
    const { tables, search } = await verify(opts, pageRows);
    await opts.switchMap?.();
    await from.batch([setFenceStatement(from, logical, "moved", toName)]);
    return { logical, from: fromName, to: toName, tables, search, referenced: {} };
  }
  if (targetFence.state === "active" && (await holdsRows(to, logical))) {
    throw new ShardMoveError(
      `${toName} serves logical shard ${logical} already (its fence is active and it holds rows)`,
    );
  }

  // (a)
  await from.batch([setFenceStatement(from, logical, "read-only")]);
  await to.batch([setFenceStatement(to, logical, "moved", fromName)]);
  const abandon = async () => {
    await deleteShardRows(to, logical, pageRows);
    await from.batch([setFenceStatement(from, logical, "active")]);
  };

  let referenced: Record<string, number>;
  let tables: TableReport[];
  let search: TableReport;
  try {
    // (b)
    referenced = await copyShardRows({ from, to, logical, batchRows: pageRows, onCopied: opts.onCopied });
    // (c)
    ({ tables, search } = await verify(opts, pageRows));
  } catch (error) {
    await abandon();
    throw error;
  }

  // (d)
  await to.batch([setFenceStatement(to, logical, "active")]);
  await opts.switchMap?.();
  await from.batch([setFenceStatement(from, logical, "moved", toName)]);
  return { logical, from: fromName, to: toName, tables, search, referenced };
}

/**
 * Step (c): each shard table's and the search entries' count and checksum in both databases, in the source's
 * terms; throws a ShardMoveError naming every table that differs.
 */
async function verify(opts: MoveOptions, pageRows: number): Promise<{ tables: TableReport[]; search: TableReport }> {
  const { from, to, logical, fromName, toName } = opts;
  const shapes = moveShapes();
  const mismatches: ShardMoveError["mismatches"] = [];
  const compare = async (shape: TableShape) => {
    const [source, target] = await Promise.all([
      digestShardTable(from, shape, logical, pageRows),
      digestShardTable(to, shape, logical, pageRows),
    ]);
    if (source.rows !== target.rows || source.checksum !== target.checksum)
      mismatches.push({ table: shape.name, source, target });
    return source;
  };
  const tables: TableReport[] = [];
  for (const shape of shapes.tables) tables.push(await compare(shape));
  const search = await compare(shapes.search);
  if (mismatches.length) {
    throw new ShardMoveError(
      `logical shard ${logical}: the copy in ${toName} differs from ${fromName} in ${mismatches.map((m) => `${m.table} (${m.source.rows} → ${m.target.rows} rows)`).join(", ")}`,
      mismatches,
    );
  }
  return { tables, search };
}

/** The state a fence row of `db` records for `logical`, or null when it has none (readFence reads that as active). */
export async function recordedState(db: D1Database, logical: number): Promise<string | null> {
  return db.prepare(`SELECT state FROM shard_fence WHERE logical = ?1`).bind(logical).first<string>("state");
}

/** Whether `db` holds any row of `logical` in a shard table. */
export async function holdsRows(db: D1Database, logical: number): Promise<boolean> {
  const statements = moveShapes().tables.map((shape) => {
    const cond = shardCondition(shape.key, logical);
    return db
      .prepare(`SELECT EXISTS (SELECT 1 FROM ${q(shape.name)} WHERE ${cond.sql}) AS present`)
      .bind(...cond.params);
  });
  const results = await db.batch<{ present: number }>(statements);
  return results.some((r) => r.results[0]?.present === 1);
}

/**
 * Step (e): deletes the old copy of a moved logical shard from `db` (the source of a finished move), children
 * first, then its search entries. Refuses unless `db`'s fence says the shard moved, so it can never delete the
 * copy that serves. Returns the rows deleted per table.
 */
export async function dropMovedCopy(opts: {
  db: D1Database;
  logical: number;
  batchRows?: number;
}): Promise<Record<string, number>> {
  await refuseUnlessMoved(opts.db, opts.logical);
  return deleteShardRows(opts.db, opts.logical, opts.batchRows ?? DEFAULT_BATCH_ROWS);
}

async function refuseUnlessMoved(db: D1Database, logical: number): Promise<void> {
  const fence = await readFence(db, logical);
  if (fence.state !== "moved")
    throw new ShardMoveError(`logical shard ${logical} has not moved out of this database (fence: ${fence.state})`);
}

/** dropMovedCopy within at most about `maxCalls` D1 calls: repeated until `done` for an old copy too large for one call. */
export async function dropMovedCopyWithin(opts: {
  db: D1Database;
  logical: number;
  maxCalls: number;
  batchRows?: number;
}): Promise<{ deleted: number; done: boolean }> {
  await refuseUnlessMoved(opts.db, opts.logical);
  return deleteShardRowsWithin(
    opts.db,
    opts.logical,
    opts.batchRows ?? DEFAULT_BATCH_ROWS,
    Math.max(1, opts.maxCalls - 1),
  );
}
