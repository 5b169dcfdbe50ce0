/**
 * The cascade budgets' statement builders (./cascade.ts, docs/api-guide.md "Automations: cascades are bounded as a
 * whole"): raw D1 statements for the cascade's row, the runs its events create, the project's day; they return the
 * statement without running it. Split from ./queries.ts by concern (that file holds the automations' records).
 *
 * ./cascade.ts imports these and they import its budgets: every use of a budget here sits inside a function, so
 * either module may load first.
 */
import { statement } from "../../db/d1";
import {
  CASCADE_DELIVERIES,
  CASCADE_RUNS,
  CASCADE_WRITES,
  PACE_MS_PER_WRITE,
  utcDay,
  type CascadeSpent,
} from "./cascade";

/** Reserves `n` writes or deliveries on the cascade's row (created on first use); RETURNING a row only within budget. */
export function reserveStatement(
  d1: D1Database,
  kind: "writes" | "deliveries",
  cascadeId: string,
  projectId: string,
  n: number,
  now: number,
): D1PreparedStatement {
  const sql =
    kind === "writes"
      ? `INSERT INTO automation_cascades (id, project_id, writes, deliveries, runs, last_grant, created_at)
  VALUES (?1, ?2, ?3, 0, 0, 0, ?4)
  ON CONFLICT (id) DO UPDATE SET writes = writes + ?3 WHERE writes + ?3 <= ${CASCADE_WRITES}
  RETURNING writes`
      : `INSERT INTO automation_cascades (id, project_id, writes, deliveries, runs, last_grant, created_at)
  VALUES (?1, ?2, 0, ?3, 0, 0, ?4)
  ON CONFLICT (id) DO UPDATE SET deliveries = deliveries + ?3 WHERE deliveries + ?3 <= ${CASCADE_DELIVERIES}
  RETURNING deliveries`;
  return statement(d1, sql, cascadeId, projectId, n, now);
}

/** True when the cascade can do nothing more (its writes and its deliveries are both used up). */
export function exhaustedStatement(d1: D1Database, cascadeId: string): D1PreparedStatement {
  return statement(
    d1,
    `SELECT writes >= ${CASCADE_WRITES} AND deliveries >= ${CASCADE_DELIVERIES} AS exhausted, writes, deliveries FROM automation_cascades WHERE id = ?1`,
    cascadeId,
  );
}

/**
 * The runs of a JSON array (`?1`, see createRunsStatements) in order, with the cascade `cascadeParam` names (`c`):
 * `r.n` is each run's place, `r.w_before`/`r.d_before` what the runs before it plan. `runFits()` is the condition for
 * a run the cascade can still pay for.
 */
const plannedRuns = (
  cascadeParam: string,
) => `j AS (SELECT key AS k, value ->> 0 AS id, value ->> 1 AS automation_id, value ->> 2 AS project_id, value ->> 3 AS event_key,
                      value ->> 4 AS trig, value ->> 5 AS w, value ->> 6 AS d FROM json_each(?1)),
              c AS (SELECT runs, writes, MAX(writes, planned_writes) AS pw, MAX(deliveries, planned_deliveries) AS pd FROM automation_cascades WHERE id = ${cascadeParam}),
              r AS (SELECT j.*, ROW_NUMBER() OVER (ORDER BY k) AS n,
                      SUM(w) OVER (ORDER BY k ROWS UNBOUNDED PRECEDING) - w AS w_before,
                      SUM(d) OVER (ORDER BY k ROWS UNBOUNDED PRECEDING) - d AS d_before FROM j)`;
const runFits = () => `c.runs + r.n <= ${CASCADE_RUNS}
           AND ((r.w > 0 AND c.pw + r.w_before < ${CASCADE_WRITES}) OR (r.d > 0 AND c.pd + r.d_before < ${CASCADE_DELIVERIES})
                OR (r.w = 0 AND r.d = 0 AND c.writes < ${CASCADE_WRITES}))`;
/** Books runs on the cascade (`made`: their planned writes `w` and deliveries `d`) and moves its clock on by their cost. */
const bookRuns = (made: string) => `UPDATE automation_cascades SET runs = runs + (SELECT count(*) FROM ${made}),
           planned_writes = MAX(writes, planned_writes) + (SELECT COALESCE(SUM(w), 0) FROM ${made}),
           planned_deliveries = MAX(deliveries, planned_deliveries) + (SELECT COALESCE(SUM(d), 0) FROM ${made}),
           last_grant = MAX(last_grant, ?3) + (SELECT COALESCE(SUM(w + d), 0) FROM ${made}) * ${PACE_MS_PER_WRITE}
         WHERE id = ?2 RETURNING last_grant AS clock`;
const RUN_COLUMNS = `(id, automation_id, project_id, event_key, "trigger", depth, cascade_id, status, operations, affected_rows, external_writes, actions, delivery_ids, created_at, updated_at)`;
const ensureCascade = (d1: D1Database, cascadeId: string, projectId: string, now: number) =>
  statement(
    d1,
    `INSERT INTO automation_cascades (id, project_id, created_at) VALUES (?1, ?2, ?3) ON CONFLICT (id) DO NOTHING`,
    cascadeId,
    projectId,
    now,
  );

/**
 * Creating runs reserves what they could spend (docs/api-guide.md, "Cascades are bounded as a whole"): each run
 * plans one write per non-webhook action and one delivery per webhook action, and a run is only created while
 * what the cascade has planned so far (or spent, if more) leaves some of the budget it needs — so once the runs
 * already queued could use up the writes, the runs the next events would cause are not created at all instead of
 * being queued and skipped. Three statements for one batch (one transaction): the cascade's row, the runs
 * (RETURNING the ids created), the reservation of what the created ones planned — which also moves the
 * cascade's clock on by their cost (RETURNING it, for runStartDelays). For a cascade whose home is the runs' own
 * shard database; a foreign one's runs are reserved at home first (reserveRunsStatements, insertRunsStatement).
 *
 * `runs` is a JSON array of [id, automationId, projectId, eventKey, trigger, plannedWrites, plannedDeliveries].
 */
export function createRunsStatements(
  d1: D1Database,
  cascadeId: string,
  projectId: string,
  runs: readonly unknown[][],
  depth: number,
  now: number,
): D1PreparedStatement[] {
  const json = JSON.stringify(runs);
  return [
    ensureCascade(d1, cascadeId, projectId, now),
    statement(
      d1,
      `WITH ${plannedRuns("?4")}
         INSERT INTO automation_runs ${RUN_COLUMNS}
         SELECT r.id, r.automation_id, r.project_id, r.event_key, r.trig, ?2, ?4, 'queued', 0, 0, 0, '[]', '[]', ?3, ?3
         FROM r, c
         WHERE ${runFits()}
         ON CONFLICT (automation_id, event_key) DO NOTHING RETURNING id`,
      json,
      depth,
      now,
      cascadeId,
    ),
    statement(
      d1,
      `WITH made AS (SELECT j.value ->> 5 AS w, j.value ->> 6 AS d FROM json_each(?1) j JOIN automation_runs r ON r.id = j.value ->> 0) ${bookRuns("made")}`,
      json,
      cascadeId,
      now,
    ),
  ];
}

/**
 * The first half of creating runs in a shard database other than their cascade's home (foreignCascade): in the
 * home `d1`, one batch — the cascade's row, the ids of the runs it can pay for (runFits(), as createRunsStatements
 * decides), and their booking, RETURNING the clock. insertRunsStatement then creates those runs where they belong.
 * A run booked here that its own database then refuses (an event delivered twice) stays booked: the budget is
 * spent early, never passed.
 */
export function reserveRunsStatements(
  d1: D1Database,
  cascadeId: string,
  projectId: string,
  runs: readonly unknown[][],
  now: number,
): D1PreparedStatement[] {
  const json = JSON.stringify(runs);
  return [
    ensureCascade(d1, cascadeId, projectId, now),
    statement(d1, `WITH ${plannedRuns("?2")} SELECT r.id FROM r, c WHERE ${runFits()}`, json, cascadeId),
    statement(
      d1,
      `WITH ${plannedRuns("?2")}, made AS (SELECT r.w, r.d FROM r, c WHERE ${runFits()}) ${bookRuns("made")}`,
      json,
      cascadeId,
      now,
    ),
  ];
}

/** The runs a foreign cascade's home booked (reserveRunsStatements), created in their own shard database; RETURNING the ids created. */
export function insertRunsStatement(
  d1: D1Database,
  cascadeId: string,
  runs: readonly unknown[][],
  depth: number,
  now: number,
): D1PreparedStatement {
  return statement(
    d1,
    `INSERT INTO automation_runs ${RUN_COLUMNS}
       SELECT value ->> 0, value ->> 1, value ->> 2, value ->> 3, value ->> 4, ?2, ?4, 'queued', 0, 0, 0, '[]', '[]', ?3, ?3
       FROM json_each(?1) WHERE true
       ON CONFLICT (automation_id, event_key) DO NOTHING RETURNING id`,
    JSON.stringify(runs),
    depth,
    now,
    cascadeId,
  );
}

/**
 * Once a cascade's budget runs out, its queued runs that could only spend what is used up (automations whose every
 * action writes, once the writes are gone; whose every action is a webhook, once the deliveries are) end `skipped`
 * at once, in one statement, instead of each taking its turn on the Queue to find out.
 */
export function skipQueuedRunsStatement(
  d1: D1Database,
  cascadeId: string,
  now: number,
  spent: CascadeSpent | null = null,
): D1PreparedStatement {
  const error = JSON.stringify({
    code: "CascadeBudgetExceeded",
    message: "The cascade this run belongs to has used its budget for its cause",
  });
  // A foreign cascade's row is at home (`spent`, read there); a local one's is read in the statement.
  const state = spent
    ? `SELECT ${Number(spent.writes)} < ${CASCADE_WRITES} AS wl, ${Number(spent.deliveries)} < ${CASCADE_DELIVERIES} AS dl`
    : `SELECT writes < ${CASCADE_WRITES} AS wl, deliveries < ${CASCADE_DELIVERIES} AS dl FROM automation_cascades WHERE id = ?1`;
  return statement(
    d1,
    `WITH c AS (${state})
       UPDATE automation_runs SET status = 'skipped', started_at = ?2, finished_at = ?2, updated_at = ?2, error = ?3
       WHERE cascade_id = ?1 AND status = 'queued' AND automation_id IN (
         SELECT a.id FROM automations a
         WHERE a.id IN (SELECT automation_id FROM automation_runs WHERE cascade_id = ?1 AND status = 'queued')
           AND NOT EXISTS (SELECT 1 FROM json_each(a.actions) x, c
                           WHERE (x.value ->> '$.spec.kind' = 'webhook' AND c.dl) OR (x.value ->> '$.spec.kind' <> 'webhook' AND c.wl)))`,
    cascadeId,
    now,
    error,
  );
}

/** Counts one run against the project's day; RETURNING the count (past DAILY_RUNS the run is skipped). */
export function dayRunStatement(d1: D1Database, projectId: string, now: number): D1PreparedStatement {
  return statement(
    d1,
    `INSERT INTO automation_project_days (project_id, day, runs, notified) VALUES (?1, ?2, 1, 0)
       ON CONFLICT (project_id, day) DO UPDATE SET runs = runs + 1 RETURNING runs`,
    projectId,
    utcDay(now),
  );
}

/** Marks the day as notified; RETURNING a row only for the first caller (the owner is told once). */
export function claimDayNoticeStatement(d1: D1Database, projectId: string, now: number): D1PreparedStatement {
  return statement(
    d1,
    `UPDATE automation_project_days SET notified = 1 WHERE project_id = ?1 AND day = ?2 AND notified = 0 RETURNING runs`,
    projectId,
    utcDay(now),
  );
}
