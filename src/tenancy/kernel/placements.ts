// Where each logical shard is served right now (docs/scaling.md "Moving a logical shard"). SHARD_MAP (./shards) is
// the map a deployment ships with; a move made since is recorded in the directory's `shard_placements` (migration
// 0013), each row with a sequence number. Every authenticated request asks the directory, in the batch that checks
// its token, for the rows newer than the last one this isolate has seen — almost always none — so a Worker learns a
// move on its next authenticated request at no cost in round trips, and a request that was routed by the older map
// is sent again to the database the directory names (src/services/batchedAuth.ts followPlacements). Work without a
// token (a portal reader, a queue message, a Durable Object) learns it when the old database refuses a write
// (the fence, src/tenancy/kernel/fence.ts) and its error path calls learnFromFence.
import { sql } from "drizzle-orm";
import type { Db } from "../../env";
import { rawSelect } from "../../db/sql";
import { fenceRefusalOf } from "./fence";
import { bindingOf, isLogicalShard, shardBindings, type ShardBinding } from "./map";

export interface PlacementRow {
  logical: number;
  binding: string;
  seq: number;
}

/** The moves this isolate has learned: logical shard → the binding now serving it. */
const learned = new Map<number, ShardBinding>();
let seenSeq = 0;

/** The binding serving `logical`: a move learned from the directory, else SHARD_MAP's. */
export function servingBindingOf(logical: number): ShardBinding {
  return learned.get(logical) ?? bindingOf(logical);
}

/** The directory's placements newer than the newest this isolate has applied (a statement for a batch). */
export function placementsQuery(dir: Db) {
  return rawSelect<PlacementRow>(
    dir,
    ["logical", "binding", "seq"],
    sql`SELECT logical, binding, seq FROM shard_placements WHERE seq > ${seenSeq}`,
  );
}

const isBinding = (b: string): b is ShardBinding => (shardBindings() as string[]).includes(b);

/** Applies rows of placementsQuery, in sequence order; returns whether any placement changed. */
export function applyPlacements(rows: readonly PlacementRow[]): boolean {
  let changed = false;
  for (const row of [...rows].sort((a, b) => a.seq - b.seq)) {
    if (row.seq <= seenSeq) continue;
    seenSeq = row.seq;
    // A row naming a database this deployment has no binding for (or no logical shard) is ignored, not followed.
    if (!isLogicalShard(row.logical) || !isBinding(row.binding)) continue;
    if (servingBindingOf(row.logical) !== row.binding) changed = true;
    learned.set(row.logical, row.binding);
  }
  return changed;
}

/** Reads and applies the directory's newer placements (after a database refused a write because its shard moved). */
export async function refreshPlacements(dir: Db): Promise<boolean> {
  return applyPlacements(await placementsQuery(dir));
}

/**
 * What a failed write tells about the fence (null: nothing): after a refusal because the shard moved, this isolate
 * first learns where it went from the directory, so whatever retries the work (a client after 503, a queue, a
 * Durable Object's next alarm) reaches the new database.
 */
export async function learnFromFence(dir: Db, error: unknown): Promise<"read-only" | "moved" | null> {
  const refusal = fenceRefusalOf(error);
  if (refusal === "moved") await refreshPlacements(dir).catch(() => false);
  return refusal;
}

/**
 * Records that `logical` is now served by `binding` (the switch of a move, one row written in the directory). The
 * sequence number is the next after the largest, computed in the statement, so concurrent moves of different shards
 * each get their own.
 */
export function recordPlacementStatement(
  dir: D1Database,
  logical: number,
  binding: ShardBinding,
  at: number,
): D1PreparedStatement {
  if (!isLogicalShard(logical)) throw new RangeError(`not a logical shard: ${logical}`);
  return dir
    .prepare(
      `INSERT INTO shard_placements (logical, binding, seq, moved_at)
       VALUES (?1, ?2, (SELECT coalesce(max(seq), 0) + 1 FROM shard_placements), ?3)
       ON CONFLICT (logical) DO UPDATE SET binding = excluded.binding, seq = excluded.seq, moved_at = excluded.moved_at`,
    )
    .bind(logical, binding, at);
}

/** Forgets every move learned (as a Worker started before them): for the tests that route by an older map. */
export function forgetPlacements(): void {
  learned.clear();
  seenSeq = 0;
}
