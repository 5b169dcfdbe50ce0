/**
 * The automations' raw statements (docs/architecture.md, "Statements"): what Drizzle's builders cannot express
 * (UPDATE … RETURNING over a fence condition, json_each writes in chunks), built here and run by the area's services.
 */
import { statement } from "../../db/d1";
import { writableHereSql } from "../context";

/** How long a claim holds a due automation (scheduler.ts): one that dies after claiming falls due again after it. */
const LEASE_MS = 5 * 60_000;
/** Runs, deliveries and cascades older than this are swept. */
const RETENTION_MS = 90 * 24 * 60 * 60_000;
/** Longest a run can take (maxDurationMs upper bound) plus slack; a run `running` longer was interrupted. */
const STALE_RUNNING_MS = 900_000 + 5 * 60_000;
/** A run still `queued` this long after it was made is enqueued again. */
const STALE_QUEUED_MS = 15 * 60_000;

/** Rows per json_each statement, so each bound value stays far below D1's 2 MB limit. */
export const CHUNK = 2_000;

/** The scheduler's claim: every due automation of this shard database leased to `token` (scheduler.ts, step 1). */
export function claimDueStatement(d1: D1Database, token: string, now: number): D1PreparedStatement {
  return statement(
    d1,
    `UPDATE automations SET claimed_for = next_run_at, next_run_at = ?1, claim_token = ?2
       WHERE next_run_at <= ?3 AND enabled = 1 AND is_deleted = 0 AND ${writableHereSql("automations.workspace_id")}
       RETURNING id, project_id, triggers, claimed_for`,
    now + LEASE_MS,
    token,
    now,
  );
}

/** The claimed automations' next instants (`[id, next]`), written where `token`'s claim still holds, a chunk each. */
export function nextRunStatements(
  d1: D1Database,
  nextTimes: readonly [string, number | null][],
  token: string,
): D1PreparedStatement[] {
  const statements: D1PreparedStatement[] = [];
  for (let i = 0; i < nextTimes.length; i += CHUNK)
    statements.push(
      statement(
        d1,
        `UPDATE automations SET next_run_at = j.value ->> 1, claim_token = NULL
           FROM json_each(?1) j WHERE automations.id = j.value ->> 0 AND automations.claim_token = ?2`,
        JSON.stringify(nextTimes.slice(i, i + CHUNK)),
        token,
      ),
    );
  return statements;
}

/** The scheduled runs (`[id, automationId, projectId, eventKey, trigger]`), once per instant, returning the new ids. */
export function scheduledRunStatements(d1: D1Database, runs: readonly unknown[][], now: number): D1PreparedStatement[] {
  const statements: D1PreparedStatement[] = [];
  for (let i = 0; i < runs.length; i += CHUNK)
    statements.push(
      statement(
        d1,
        `INSERT INTO automation_runs (id, automation_id, project_id, event_key, "trigger", depth, cascade_id, status, operations, affected_rows, external_writes, actions, delivery_ids, created_at, updated_at)
           SELECT j.value ->> 0, j.value ->> 1, j.value ->> 2, j.value ->> 3, j.value ->> 4, 1, j.value ->> 0, 'queued', 0, 0, 0, '[]', '[]', ?2, ?2
           FROM json_each(?1) j WHERE true
           ON CONFLICT (automation_id, event_key) DO NOTHING RETURNING id`,
        JSON.stringify(runs.slice(i, i + CHUNK)),
        now,
      ),
    );
  return statements;
}

/**
 * The tick's sweep, one batch: old runs and deliveries deleted, runs stuck `running` (3rd result) and still
 * `queued` (4th) selected, old cascades and per-day counters deleted.
 */
export function sweepStatements(d1: D1Database, now: number): D1PreparedStatement[] {
  return [
    statement(
      d1,
      `DELETE FROM automation_runs WHERE id IN (SELECT id FROM automation_runs WHERE created_at < ?1 LIMIT 5000)`,
      now - RETENTION_MS,
    ),
    statement(
      d1,
      `DELETE FROM automation_deliveries WHERE id IN (SELECT id FROM automation_deliveries WHERE created_at < ?1 LIMIT 5000)`,
      now - RETENTION_MS,
    ),
    statement(
      d1,
      `SELECT id FROM automation_runs WHERE status = 'running' AND started_at < ?1 LIMIT 100`,
      now - STALE_RUNNING_MS,
    ),
    statement(
      d1,
      `SELECT id FROM automation_runs WHERE status = 'queued' AND created_at < ?1 LIMIT 1000`,
      now - STALE_QUEUED_MS,
    ),
    statement(
      d1,
      `DELETE FROM automation_cascades WHERE id IN (SELECT id FROM automation_cascades WHERE created_at < ?1 LIMIT 5000)`,
      now - RETENTION_MS,
    ),
    statement(
      d1,
      `DELETE FROM automation_project_days WHERE day < ?1`,
      new Date(now - 2 * 86_400_000).toISOString().slice(0, 10),
    ),
  ];
}
