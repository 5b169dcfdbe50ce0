/**
 * Cascade budgets (docs/api-guide.md, "Automations: cascades are bounded as a whole"). Everything one cause sets
 * off — a person's write, a manual run, a scheduled firing, and every retry of a run it caused — shares one row of
 * `automation_cascades`: at most CASCADE_WRITES automation writes (rows, documents, notifications) and
 * CASCADE_DELIVERIES webhook deliveries across every depth, and at most CASCADE_RUNS runs created by its events.
 * Each reservation is one conditional UPSERT (the row is created on first use), so concurrent runs of one
 * cascade never pass the budget together. A project starts at most DAILY_RUNS runs per UTC day.
 *
 * These statements go to the raw D1 binding: they guard the runs, so a run's own `operationBudget` does not pay
 * for them.
 */
import type { Env } from "../../env";

export const CASCADE_WRITES = 1_000;
export const CASCADE_DELIVERIES = 100;
export const CASCADE_RUNS = 1_000;
export const DAILY_RUNS = 10_000;

export class CascadeBudgetExceeded extends Error {
  constructor(readonly budget: "writes" | "deliveries" | "runs", readonly limit: number) {
    super(`The cascade this run belongs to has used its ${budget} budget (${limit}) for its cause`);
  }
  toJSON() {
    return { code: "CascadeBudgetExceeded", message: this.message, budget: this.budget, limit: this.limit };
  }
}

const WRITES_SQL = `INSERT INTO automation_cascades (id, project_id, writes, deliveries, runs, last_grant, created_at)
  VALUES (?1, ?2, ?3, 0, 0, 0, ?4)
  ON CONFLICT (id) DO UPDATE SET writes = writes + ?3 WHERE writes + ?3 <= ${CASCADE_WRITES}
  RETURNING writes`;
const DELIVERIES_SQL = `INSERT INTO automation_cascades (id, project_id, writes, deliveries, runs, last_grant, created_at)
  VALUES (?1, ?2, 0, ?3, 0, 0, ?4)
  ON CONFLICT (id) DO UPDATE SET deliveries = deliveries + ?3 WHERE deliveries + ?3 <= ${CASCADE_DELIVERIES}
  RETURNING deliveries`;

export function deliveriesStatement(d1: D1Database, cascadeId: string, projectId: string, n = 1, now = Date.now()): D1PreparedStatement {
  return d1.prepare(DELIVERIES_SQL).bind(cascadeId, projectId, n, now);
}

/** Reserves `n` writes (or deliveries) on the cascade; throws CascadeBudgetExceeded when that would pass the budget. */
export async function reserveCascade(env: Pick<Env, "DB">, cascadeId: string, projectId: string, kind: "writes" | "deliveries", n: number): Promise<void> {
  if (n <= 0) return;
  if (kind === "writes" && n > CASCADE_WRITES) throw new CascadeBudgetExceeded("writes", CASCADE_WRITES);
  const row = await env.DB.prepare(kind === "writes" ? WRITES_SQL : DELIVERIES_SQL).bind(cascadeId, projectId, n, Date.now()).first();
  if (!row) throw new CascadeBudgetExceeded(kind, kind === "writes" ? CASCADE_WRITES : CASCADE_DELIVERIES);
}

/** True when the cascade can do nothing more (its writes and its deliveries are both used up). */
export function exhaustedStatement(d1: D1Database, cascadeId: string): D1PreparedStatement {
  return d1
    .prepare(`SELECT writes >= ${CASCADE_WRITES} AND deliveries >= ${CASCADE_DELIVERIES} AS exhausted, writes, deliveries FROM automation_cascades WHERE id = ?1`)
    .bind(cascadeId);
}

/**
 * Grants up to `n` run slots of the cascade (fewer when it nears CASCADE_RUNS, none when both its writes and its
 * deliveries are used up — a run that needs the one that is left can still do it); the
 * statement that follows in the same batch reads the grant from `last_grant`.
 */
export function grantRunsStatement(d1: D1Database, cascadeId: string, projectId: string, n: number, now: number): D1PreparedStatement {
  const grant = `CASE WHEN writes >= ${CASCADE_WRITES} AND deliveries >= ${CASCADE_DELIVERIES} THEN 0 ELSE MAX(0, MIN(${CASCADE_RUNS} - runs, ?3)) END`;
  return d1
    .prepare(
      `INSERT INTO automation_cascades (id, project_id, writes, deliveries, runs, last_grant, created_at)
       VALUES (?1, ?2, 0, 0, MIN(?3, ${CASCADE_RUNS}), MIN(?3, ${CASCADE_RUNS}), ?4)
       ON CONFLICT (id) DO UPDATE SET last_grant = ${grant}, runs = runs + ${grant}`,
    )
    .bind(cascadeId, projectId, n, now);
}

/**
 * Once a cascade's budget runs out, its queued runs that could only spend what is used up (automations whose every
 * action writes, once the writes are gone; whose every action is a webhook, once the deliveries are) end `skipped`
 * at once, in one statement, instead of each taking its turn on the Queue to find out.
 */
export function skipQueuedRunsStatement(d1: D1Database, cascadeId: string, now: number): D1PreparedStatement {
  const error = JSON.stringify({ code: "CascadeBudgetExceeded", message: "The cascade this run belongs to has used its budget for its cause" });
  return d1
    .prepare(
      `WITH c AS (SELECT writes < ${CASCADE_WRITES} AS wl, deliveries < ${CASCADE_DELIVERIES} AS dl FROM automation_cascades WHERE id = ?1)
       UPDATE automation_runs SET status = 'skipped', started_at = ?2, finished_at = ?2, updated_at = ?2, error = ?3
       WHERE cascade_id = ?1 AND status = 'queued' AND automation_id IN (
         SELECT a.id FROM automations a
         WHERE a.id IN (SELECT automation_id FROM automation_runs WHERE cascade_id = ?1 AND status = 'queued')
           AND NOT EXISTS (SELECT 1 FROM json_each(a.actions) x, c
                           WHERE (x.value ->> '$.spec.kind' = 'webhook' AND c.dl) OR (x.value ->> '$.spec.kind' <> 'webhook' AND c.wl)))`,
    )
    .bind(cascadeId, now, error);
}

export const utcDay = (t: number) => new Date(t).toISOString().slice(0, 10);

/** Counts one run against the project's day; RETURNING the count (past DAILY_RUNS the run is skipped). */
export function dayRunStatement(d1: D1Database, projectId: string, now: number): D1PreparedStatement {
  return d1
    .prepare(
      `INSERT INTO automation_project_days (project_id, day, runs, notified) VALUES (?1, ?2, 1, 0)
       ON CONFLICT (project_id, day) DO UPDATE SET runs = runs + 1 RETURNING runs`,
    )
    .bind(projectId, utcDay(now));
}

/** Marks the day as notified; RETURNING a row only for the first caller (the owner is told once). */
export function claimDayNoticeStatement(d1: D1Database, projectId: string, now: number): D1PreparedStatement {
  return d1
    .prepare(`UPDATE automation_project_days SET notified = 1 WHERE project_id = ?1 AND day = ?2 AND notified = 0 RETURNING runs`)
    .bind(projectId, utcDay(now));
}
