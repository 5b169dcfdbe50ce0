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
import { failRunForGood } from "./runner";
import { nextRunAfter } from "./schedule";
import type { StoredTrigger } from "../../db/schema";
import { newIdBeside } from "../../tenancy/kernel/ids";
import { shardBindings } from "../../tenancy/kernel/map";
import { writableHereSql } from "../../tenancy/kernel/fence";

export const LEASE_MS = 5 * 60_000;
export const RETENTION_MS = 90 * 24 * 60 * 60_000;
/** Rows per json_each statement, so each bound value stays far below D1's 2 MB limit. */
const CHUNK = 2_000;

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
  const results = await Promise.all(shardBindings().map((b) => claimOnShard(env, env[b]!, token, now)));
  return {
    claimed: results.reduce((a, r) => a + r.claimed, 0),
    enqueued: results.reduce((a, r) => a + r.enqueued, 0),
    // Sequential round trips: the shards' run side by side.
    d1RoundTrips: Math.max(...results.map((r) => r.d1RoundTrips)),
  };
}

async function claimOnShard(env: Env, d1: D1Database, token: string, now: number): Promise<TickResult> {
  const claimed = await d1
    .prepare(
      `UPDATE automations SET claimed_for = next_run_at, next_run_at = ?1, claim_token = ?2
       WHERE next_run_at <= ?3 AND enabled = 1 AND is_deleted = 0 AND ${writableHereSql("automations.workspace_id")}
       RETURNING id, project_id, triggers, claimed_for`,
    )
    .bind(now + LEASE_MS, token, now)
    .all<ClaimedRow>();
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
      newIdBeside(r.id),
      r.id,
      r.project_id,
      `schedule:${r.claimed_for}`,
      JSON.stringify({ type: "schedule", scheduledFor: r.claimed_for }),
    ]);
  }
  const statements: D1PreparedStatement[] = [];
  for (let i = 0; i < nextTimes.length; i += CHUNK) {
    statements.push(
      d1
        .prepare(
          `UPDATE automations SET next_run_at = j.value ->> 1, claim_token = NULL
           FROM json_each(?1) j WHERE automations.id = j.value ->> 0 AND automations.claim_token = ?2`,
        )
        .bind(JSON.stringify(nextTimes.slice(i, i + CHUNK)), token),
    );
  }
  for (let i = 0; i < runs.length; i += CHUNK) {
    statements.push(
      d1
        .prepare(
          `INSERT INTO automation_runs (id, automation_id, project_id, event_key, "trigger", depth, cascade_id, status, operations, affected_rows, external_writes, actions, delivery_ids, created_at, updated_at)
           SELECT j.value ->> 0, j.value ->> 1, j.value ->> 2, j.value ->> 3, j.value ->> 4, 1, j.value ->> 0, 'queued', 0, 0, 0, '[]', '[]', ?2, ?2
           FROM json_each(?1) j WHERE true
           ON CONFLICT (automation_id, event_key) DO NOTHING RETURNING id`,
        )
        .bind(JSON.stringify(runs.slice(i, i + CHUNK)), now),
    );
  }
  const results = await d1.batch<{ id: string }>(statements);
  const runIds = results.slice(Math.ceil(nextTimes.length / CHUNK)).flatMap((r) => r.results.map((x) => x.id));
  await enqueueAll(
    env.AUTOMATION_QUEUE,
    runIds.map((runId): AutomationMessage => ({ kind: "run", runId })),
  );
  return { claimed: rows.length, enqueued: runIds.length, d1RoundTrips: 2 };
}

/** Longest a run can take (maxDurationMs upper bound) plus slack; a run `running` longer was interrupted. */
const STALE_RUNNING_MS = 900_000 + 5 * 60_000;
const STALE_QUEUED_MS = 15 * 60_000;

export async function sweep(env: Env, now: number): Promise<void> {
  await Promise.all(shardBindings().map((b) => sweepShard(env, env[b]!, now)));
}

async function sweepShard(env: Env, d1: D1Database, now: number): Promise<void> {
  const [, , stale, queued] = await d1.batch<{ id: string }>([
    d1
      .prepare(
        `DELETE FROM automation_runs WHERE id IN (SELECT id FROM automation_runs WHERE created_at < ?1 LIMIT 5000)`,
      )
      .bind(now - RETENTION_MS),
    d1
      .prepare(
        `DELETE FROM automation_deliveries WHERE id IN (SELECT id FROM automation_deliveries WHERE created_at < ?1 LIMIT 5000)`,
      )
      .bind(now - RETENTION_MS),
    d1
      .prepare(`SELECT id FROM automation_runs WHERE status = 'running' AND started_at < ?1 LIMIT 100`)
      .bind(now - STALE_RUNNING_MS),
    d1
      .prepare(`SELECT id FROM automation_runs WHERE status = 'queued' AND created_at < ?1 LIMIT 1000`)
      .bind(now - STALE_QUEUED_MS),
    d1
      .prepare(
        `DELETE FROM automation_cascades WHERE id IN (SELECT id FROM automation_cascades WHERE created_at < ?1 LIMIT 5000)`,
      )
      .bind(now - RETENTION_MS),
    d1
      .prepare(`DELETE FROM automation_project_days WHERE day < ?1`)
      .bind(new Date(now - 2 * 86_400_000).toISOString().slice(0, 10)),
  ]);
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
