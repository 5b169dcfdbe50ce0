// The fence of a shard database (docs/scaling.md "Moving a logical shard"): what this database says about a logical shard
// while it moves (table shard_fence, src/db/schema/fence.ts), and the guard a batch carries so that it runs only
// where its logical shard is served (table shard_guard and its trigger, migrations/0012_shard_fence.sql).
//
// The request path does not carry the guard yet (it still serves every shard from DB); when it routes by shard, a
// write batch starts with shardGuardStatement(d1, logical, "write") and answers 503 with Retry-After when
// fenceRefusalOf(error) is "read-only", and retries on the fence's moved_to when it is "moved".
import { isLogicalShard } from "./shards";

export type FenceState = "active" | "read-only" | "moved";

export interface Fence {
  state: FenceState;
  /** The binding the shard moved to (state "moved"), else null. */
  movedTo: string | null;
}

function checkLogical(logical: number): void {
  if (!isLogicalShard(logical)) throw new RangeError(`not a logical shard: ${logical}`);
}

/** Sets the fence of `logical` in this database (an upsert; "active" is kept as a row so its time is recorded). */
export function setFenceStatement(d1: D1Database, logical: number, state: FenceState, movedTo: string | null = null): D1PreparedStatement {
  checkLogical(logical);
  if ((state === "moved") !== (movedTo !== null)) throw new Error(`a fence names moved_to exactly when the shard moved (${state}, ${movedTo})`);
  return d1
    .prepare(
      `INSERT INTO shard_fence (logical, state, moved_to, updated_at) VALUES (?1, ?2, ?3, ?4)
       ON CONFLICT (logical) DO UPDATE SET state = excluded.state, moved_to = excluded.moved_to, updated_at = excluded.updated_at`,
    )
    .bind(logical, state, movedTo, Date.now());
}

/** What this database says about `logical`: no row means active. */
export async function readFence(d1: D1Database, logical: number): Promise<Fence> {
  checkLogical(logical);
  const row = await d1.prepare(`SELECT state, moved_to FROM shard_fence WHERE logical = ?1`).bind(logical).first<{ state: FenceState; moved_to: string | null }>();
  return row ? { state: row.state, movedTo: row.moved_to } : { state: "active", movedTo: null };
}

/**
 * The guard a batch puts first: it aborts the whole batch (a D1 batch is one transaction) when this database does
 * not serve `logical` for `access` — a write needs the shard `active`, a read `active` or `read-only` — and changes
 * nothing otherwise (the trigger drops the row). The error it raises is recognised by fenceRefusalOf.
 */
export function shardGuardStatement(d1: D1Database, logical: number, access: "read" | "write"): D1PreparedStatement {
  checkLogical(logical);
  return d1.prepare(`INSERT INTO shard_guard (logical, access) VALUES (?1, ?2)`).bind(logical, access);
}

/**
 * Why a batch failed, when it was the guard: "read-only" (a move is copying the shard: answer 503 with Retry-After)
 * or "moved" (the shard left this database: read the fence's moved_to and go there); null for any other error.
 */
export function fenceRefusalOf(error: unknown): "read-only" | "moved" | null {
  const message = error instanceof Error ? `${error.message} ${String(error.cause ?? "")}` : String(error);
  const m = /shard_fence: (read-only|moved)/.exec(message);
  return m ? (m[1] as "read-only" | "moved") : null;
}
