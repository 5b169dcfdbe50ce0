/**
 * The sweep of abandoned CSV imports (docs/api-guide.md › CSV import and export), run by the Worker's scheduled
 * upkeep every minute ((tenancy/operations/repairs.ts)). An import stages its rows hidden (is_deleted = 1, origin_id = its
 * marker, ./stage) and commits or undoes them before it answers. An isolate that died in between (a crash, an
 * eviction) leaves them: hidden from every read, but stored. Once they are STAGED_MAX_AGE_MS old — far past the
 * longest import (about two minutes for the largest file the limits allow, docs/security-review.md finding 4) —
 * this deletes them with their cells, at most SWEEP_ROWS rows per step and for at most SWEEP_MS per tick on each
 * shard database, found through the partial index rows_staged_idx (migrations/shard/0007). A row a person deleted
 * has no marker and is never touched. (A column the import created stays, visible and empty: see ./stage.)
 */
import type { Env } from "../../env";
import { breather } from "./plan";
import { onEveryShardDatabase } from "../upkeep";
import { sweepStaleStatements } from "./queries";

/** How old a staged row must be before it counts as abandoned. */
export const STAGED_MAX_AGE_MS = 60 * 60 * 1000;
/** Rows deleted per step (with their cells: at most 200 each, the widest import). */
const SWEEP_ROWS = 100;
/** How long one tick sweeps one database. */
const SWEEP_MS = 5_000;

/** One database: deletes a step at a time until nothing stale is left or SWEEP_MS have passed; the changes made. */
async function sweepDatabase(db: D1Database, cutoff: number): Promise<number> {
  let swept = 0;
  const started = performance.now();
  let lastMs = 0;
  while (performance.now() - started < SWEEP_MS) {
    if (swept > 0) await breather(lastMs);
    const t = performance.now();
    const [, rows] = await db.batch(sweepStaleStatements(db, cutoff, SWEEP_ROWS));
    lastMs = performance.now() - t;
    // changes counts the search entries the row deletes remove too: more than the rows, and 0 only when none was left.
    const n = rows?.meta.changes ?? 0;
    swept += n;
    if (n === 0) break;
  }
  return swept;
}

/** Every shard database, side by side; a database that fails is logged and swept again at the next tick. */
export async function sweepStagedImports(env: Env, now: number): Promise<number> {
  const cutoff = now - STAGED_MAX_AGE_MS;
  return (await onEveryShardDatabase(env, "csv import sweep", (d1) => sweepDatabase(d1, cutoff))).total;
}
