/**
 * Moving a logical shard to another shard database while the service runs (docs/scaling.md "Moving a logical
 * shard"): the operator's `npm run shard:move -- <logical> <binding>` calls POST /admin/shards/move, then, after a
 * grace period, POST /admin/shards/drop. The copy, its verification and the fences are src/db/shardMove.ts's; this
 * adds what only the Worker knows: which database serves the shard now (the deployment's map and the moves recorded
 * since, src/db/placements.ts) and the switch of the directory's placement, which every Worker learns on its next
 * authenticated request.
 */
import { createDb } from "../../db/client";
import { applyPlacements, placementsQuery, recordPlacementStatement, servingBindingOf } from "../../db/placements";
import { dropMovedCopy, moveLogicalShard, ShardMoveError } from "../../db/shardMove";
import { shardBindings, type ShardBinding } from "../../db/shards";

export { LOGICAL_SHARDS } from "../../db/shards";
import type { Env } from "../../env";
import { ApiError, conflict } from "../../errors";

export interface ShardMoveSummary {
  logical: number;
  from: ShardBinding;
  to: ShardBinding;
  /** Rows copied per table (the search entries included), each verified by count and checksum in both databases. */
  rows: Record<string, number>;
  /** Milliseconds the shard was read-only: from the start of the move (its fence goes up first) to the switch. */
  readOnlyMs: number;
}

function bindingNamed(env: Env, name: string): ShardBinding {
  const binding = (shardBindings() as string[]).includes(name) ? (name as ShardBinding) : null;
  if (!binding || !env[binding]) {
    throw new ApiError("ValidationError", `No shard database ${name}: this deployment has ${shardBindings().join(", ")}`, {
      details: [{ path: "to", message: "not a shard database binding" }],
    });
  }
  return binding;
}

/** The binding serving `logical` according to the directory (the map this isolate knows, brought up to date first). */
async function servingNow(env: Env, logical: number): Promise<ShardBinding> {
  applyPlacements(await placementsQuery(createDb(env.DB)));
  return servingBindingOf(logical);
}

/** Moves `logical` to the database `to`: read-only while it copies, then switched; the old copy stays until dropOldShardCopy. */
export async function moveShard(
  env: Env,
  input: { logical: number; to: string },
  opts: {
    /** The request's clock: when the placement switched, as recorded in the directory. */
    now: number;
    /** Called after each table is copied, while the shard is read-only (progress; the live-move test holds the copy here). */
    onCopied?: (table: string, rows: number) => void | Promise<void>;
  },
): Promise<ShardMoveSummary> {
  const to = bindingNamed(env, input.to);
  const from = await servingNow(env, input.logical);
  if (from === to) throw conflict(`Logical shard ${input.logical} is served by ${to} already`);
  // Durations on the monotonic clock; the switch's time in the directory is the request's.
  const started = performance.now();
  let switchedAt = 0;
  try {
    const report = await moveLogicalShard({
      from: env[from]!,
      to: env[to]!,
      logical: input.logical,
      fromName: from,
      toName: to,
      onCopied: opts.onCopied,
      switchMap: async () => {
        switchedAt = performance.now();
        await env.DB.batch([recordPlacementStatement(env.DB, input.logical, to, opts.now)]);
        applyPlacements(await placementsQuery(createDb(env.DB)));
      },
    });
    const rows = Object.fromEntries([...report.tables, report.search].map((t) => [t.table, t.rows]));
    return { logical: input.logical, from, to, rows, readOnlyMs: Math.round((switchedAt || performance.now()) - started) };
  } catch (error) {
    if (error instanceof ShardMoveError) throw conflict(error.message);
    throw error;
  }
}

/** Deletes the copy a finished move left in `from` (refused unless that database's fence says the shard moved). */
export async function dropOldShardCopy(env: Env, input: { logical: number; from: string }): Promise<{ logical: number; from: ShardBinding; rows: number }> {
  const from = bindingNamed(env, input.from);
  if ((await servingNow(env, input.logical)) === from) throw conflict(`Logical shard ${input.logical} is served by ${from}: it has no old copy there`);
  try {
    const deleted = await dropMovedCopy({ db: env[from]!, logical: input.logical });
    return { logical: input.logical, from, rows: Object.values(deleted).reduce((a, n) => a + n, 0) };
  } catch (error) {
    if (error instanceof ShardMoveError) throw conflict(error.message);
    throw error;
  }
}
