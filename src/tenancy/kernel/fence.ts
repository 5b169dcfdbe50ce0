// The fence of a shard database (docs/scaling.md "Moving a logical shard"): what this database says about a logical
// shard while it moves (table shard_fence, src/db/schema/fence.ts). Triggers on every shard table refuse a write of
// a row whose shard is fenced (the shard baseline, migrations/shard/0000), so no code path can write to a copy that is being copied or has
// moved; the request path answers such a refusal (fenceRefusalOf) with 503 and Retry-After (src/http/errors.ts).
// Reads across every database filter with servedHere. shardGuardStatement is the same check made by a batch itself
// (table shard_guard, the shard baseline, migrations/shard/0000), for reads that must fail rather than see a shard that left.
import { sql, type SQL } from "drizzle-orm";
import { isLogicalShard } from "./map";
import { namesFencedShard } from "./tables";

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
export function setFenceStatement(
  d1: D1Database,
  logical: number,
  state: FenceState,
  movedTo: string | null = null,
): D1PreparedStatement {
  checkLogical(logical);
  if ((state === "moved") !== (movedTo !== null))
    throw new Error(`a fence names moved_to exactly when the shard moved (${state}, ${movedTo})`);
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
  const row = await d1
    .prepare(`SELECT state, moved_to FROM shard_fence WHERE logical = ?1`)
    .bind(logical)
    .first<{ state: FenceState; moved_to: string | null }>();
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

/**
 * SQL (text) true when the shard key `column` of a row names a logical shard whose fence here is in one of
 * `states`: the test the fence's triggers make (the shard baseline, migrations/shard/0000): the id's last two characters are the shard's
 * digits (src/lib/ids.ts).
 */
function fencedAs(column: string, states: readonly FenceState[]): string {
  if (!/^[a-z_]+(\.[a-z_]+)?$/.test(column)) throw new Error(`not a column: ${column}`);
  return `EXISTS (SELECT 1 FROM shard_fence f WHERE f.state IN (${states.map((s) => `'${s}'`).join(", ")})
    AND ${namesFencedShard(column)})`;
}

/**
 * For reads across every shard database (a listing, a search, a portal found by its slug): true for rows whose
 * logical shard this database serves (`column`, e.g. "organization_members.organization_id", is their shard key).
 * A shard that moved away leaves its copy behind until it is dropped, and a shard moving in is half copied; neither
 * may show beside the copy that serves.
 */
export function servedHere(column: string): SQL {
  return sql.raw(servedHereSql(column));
}

/** servedHere as SQL text, for statements written for D1 directly. */
export function servedHereSql(column: string): string {
  return `NOT ${fencedAs(column, ["moved"])}`;
}

/** For a write that sweeps a whole database (the Cron claim): SQL text true for rows whose logical shard is not fenced here. */
export function writableHereSql(column: string): string {
  return `NOT ${fencedAs(column, ["moved", "read-only"])}`;
}
