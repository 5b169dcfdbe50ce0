/**
 * The Cron Trigger (every minute): claims every due automation and enqueues one run each, in a number of D1
 * round trips that does not grow with the number of automations:
 *   1. one conditional UPDATE … RETURNING claims all due rows at once: `next_run_at` moves to a lease five minutes
 *      ahead and `claim_token` marks this invocation, `claimed_for` keeps the instant the run is for. An
 *      overlapping invocation's UPDATE no longer sees those rows as due, so nothing is claimed twice; an
 *      invocation that dies after claiming leaves rows that fall due again when the lease ends.
 *   2. next instants are computed here (croner), then one batch writes them back through json_each (only where
 *      this invocation's claim still holds) and inserts the runs, whose (automation_id, event_key =
 *      schedule:<instant>) key keeps a re-claimed instant from running twice.
 *      Each scheduled run is its own cause: it starts at depth 1 with a cascade of its own (cascade.ts).
 *   3. the runs go to the Queue with sendBatch, 100 per call, in parallel.
 * The same tick also sweeps: runs and deliveries older than 90 days are deleted, runs stuck in `running` past
 * the longest possible run are failed, and runs still `queued` after 15 minutes are enqueued again.
 * Automations live in the shard databases (docs/scaling.md): the claim and the sweep run on every shard database
 * at once, each in the round trips above; a run's id is issued beside its automation, so its message names its
 * shard. The Worker's own repairs run beside this tick, not from it (src/tenancy/operations/repairs.ts).
 */
import type { Env } from "../../env";
import { newId } from "../../lib/ids";
import { enqueueAll, type AutomationMessage } from "./messages";
import { CHUNK, claimDueStatement, nextRunStatements, scheduledRunStatements, sweepStatements } from "./queries";
import { failRunForGood } from "./runner";
import { nextRunAfter } from "./schedule";
import type { StoredTrigger } from "../../db/schema";
import { idsWithoutContext, systemContext } from "../context";

interface ClaimedRow {
  id: string;
  project_id: string;
  triggers: string;
  claimed_for: number;
}

export interface TickResult {
  claimed: number;
  enqueued: number;
  d1RoundTrips: number;
}

/** Every shard database's due automations claimed and their runs queued, the shards at once. */
export async function claimAndEnqueue(env: Env, now: number): Promise<TickResult> {
  const token = newId();
  const results = await Promise.all(
    systemContext(env)
      .everyShard()
      .map(({ d1 }) => claimOnShard(env, d1, token, now)),
  );
  return {
    claimed: results.reduce((a, r) => a + r.claimed, 0),
    enqueued: results.reduce((a, r) => a + r.enqueued, 0),
    // Sequential round trips: the shards' run side by side.
    d1RoundTrips: Math.max(...results.map((r) => r.d1RoundTrips)),
  };
}

async function claimOnShard(env: Env, d1: D1Database, token: string, now: number): Promise<TickResult> {
  const claimed = await claimDueStatement(d1, token, now).all<ClaimedRow>();
  const rows = claimed.results;
  if (rows.length === 0) return { claimed: 0, enqueued: 0, d1RoundTrips: 1 };

  const nextTimes: [string, number | null][] = [];
  const runs: unknown[][] = [];
  for (const r of rows) {
    let next: number | null = null;
    try {
      next = nextRunAfter(JSON.parse(r.triggers) as StoredTrigger[], Math.max(now, r.claimed_for));
    } catch {
      next = null; // a schedule croner no longer accepts stops rather than failing every tick
    }
    nextTimes.push([r.id, next]);
    runs.push([
      idsWithoutContext.beside(r.id),
      r.id,
      r.project_id,
      `schedule:${r.claimed_for}`,
      JSON.stringify({ type: "schedule", scheduledFor: r.claimed_for }),
    ]);
  }
  const statements = [...nextRunStatements(d1, nextTimes, token), ...scheduledRunStatements(d1, runs, now)];
  const results = await d1.batch<{ id: string }>(statements);
  const runIds = results.slice(Math.ceil(nextTimes.length / CHUNK)).flatMap((r) => r.results.map((x) => x.id));
  await enqueueAll(
    env.AUTOMATION_QUEUE,
    runIds.map((runId): AutomationMessage => ({ kind: "run", runId })),
  );
  return { claimed: rows.length, enqueued: runIds.length, d1RoundTrips: 2 };
}

export async function sweep(env: Env, now: number): Promise<void> {
  await Promise.all(
    systemContext(env)
      .everyShard()
      .map(({ d1 }) => sweepShard(env, d1, now)),
  );
}

async function sweepShard(env: Env, d1: D1Database, now: number): Promise<void> {
  const [, , stale, queued] = await d1.batch<{ id: string }>(sweepStatements(d1, now));
  for (const r of stale!.results) await failRunForGood(env, r.id, "The run was interrupted and did not finish");
  await enqueueAll(
    env.AUTOMATION_QUEUE,
    queued!.results.map((r): AutomationMessage => ({ kind: "run", runId: r.id })),
  );
}

const logFailure = (msg: string) => (err: unknown) =>
  console.error(JSON.stringify({ level: "error", msg, error: String(err) }));

export async function handleScheduled(
  controller: ScheduledController,
  env: Env,
  ctx: ExecutionContext,
): Promise<TickResult> {
  const result = await claimAndEnqueue(env, controller.scheduledTime || Date.now());
  ctx.waitUntil(sweep(env, Date.now()).catch(logFailure("automation sweep failed")));
  return result;
}
