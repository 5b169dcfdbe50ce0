/**
 * Cascade budgets (docs/api-guide.md, "Automations: cascades are bounded as a whole"). Everything one cause sets
 * off — a person's write, a manual run, a scheduled firing, and every retry of a run it caused — shares one row of
 * `automation_cascades`: at most CASCADE_WRITES automation writes (rows, documents, notifications) and
 * CASCADE_DELIVERIES webhook deliveries across every depth, and at most CASCADE_RUNS runs created by its events.
 * Each reservation is one conditional UPSERT (the row is created on first use), so concurrent runs of one
 * cascade never pass the budget together. A project starts at most DAILY_RUNS runs per UTC day.
 *
 * These statements go to the raw D1 binding of the cascade's home (they guard the runs, so a run's own
 * `operationBudget` does not pay for them). A cascade's row lives in one shard database, the one its id names: the
 * id is issued beside the project where the cause happened (a run's id for a manual, scheduled or retried run; an id
 * beside the written project for a person's write), so the row sits with that project's automations and runs and
 * moves with its logical shard. A cascade whose writes reach an organization on another shard database carries its
 * id there: the runs it causes there are reserved on, and charge, the one row at home (cascadeHome,
 * foreignCascade), so one cause's budget holds across every database it reaches (docs/scaling.md "Automations
 * across organizations"). Ids of the older plain form name no home: their row is the project's own.
 */
import { statement } from "../../db/d1";
import type { Env } from "../../env";
import { uncountedD1 } from "../../db/instrument";
import { bindingHolding, type ShardBinding } from "./shards";
import { d1Holding } from "../context";
import { shardNumberOfId } from "../../lib/ids";

export const CASCADE_WRITES = 1_000;
export const CASCADE_DELIVERIES = 100;
export const CASCADE_RUNS = 1_000;
export const DAILY_RUNS = 10_000;

/**
 * A cascade's pace (docs/api-guide.md, "A cascade takes its turn"): the runs its events create are spread so the
 * cascade as a whole plans at most CASCADE_RATE writes and deliveries per second, after a first CASCADE_BURST
 * that starts at once. Each run's start is scheduled on the cascade's clock (`automation_cascades.last_grant`,
 * ms: when what it has planned so far is paid off at that rate) and its Queue message is sent with the delay
 * that keeps it there. However many consumers run at once (in production the consumer scales out), one cause
 * cannot take the shared database faster than that — other tenants' requests go between. The runs a person's
 * write causes directly (depth 1) start at once: they are as many as the rows that person wrote, which their own
 * rate limit already bounds, and pacing them cut one bulk insert's 1 000 runs to 0.40 of raw inserts a second;
 * they still book their cost on the clock, so everything they cause in turn waits behind them. The amplification
 * — runs caused by runs — is what takes its turn. The clock's step (20 ms) is a whole number, so SQLite's sums
 * of it agree with JavaScript's.
 */
export const CASCADE_RATE = 50;
export const CASCADE_BURST = 100;
/** Milliseconds of the cascade's clock one planned write or delivery takes. */
export const PACE_MS_PER_WRITE = 1000 / CASCADE_RATE;

export class CascadeBudgetExceeded extends Error {
  constructor(
    readonly budget: "writes" | "deliveries" | "runs",
    readonly limit: number,
  ) {
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

/** The id whose shard database holds the cascade's row: the cascade's own id when it names a shard, else the project's (ids of the older plain form). */
function cascadeHomeId(cascadeId: string, projectId: string): string {
  const n = shardNumberOfId(cascadeId);
  return n === null ? projectId : cascadeId;
}

/** The raw D1 binding of the shard database holding the cascade's row, for runs of `projectId` (see the file's head). */
export function cascadeHome(env: Env, cascadeId: string, projectId: string): D1Database {
  return uncountedD1(d1Holding(env, cascadeHomeId(cascadeId, projectId)));
}

/** The shard database holding the cascade's row, for runs or events of `projectId`. */
export function cascadeHomeBinding(cascadeId: string, projectId: string): ShardBinding {
  return bindingHolding(cascadeHomeId(cascadeId, projectId));
}

/** True when the cascade's row lives in another shard database than the project `projectId` its run belongs to. */
export function foreignCascade(cascadeId: string, projectId: string): boolean {
  return cascadeHomeBinding(cascadeId, projectId) !== bindingHolding(projectId);
}

/**
 * Reserves `n` writes (or deliveries) on the cascade, in its home (cascadeHome; its raw binding: guarding a run costs
 * no operation of the run's budget); throws CascadeBudgetExceeded when that would pass the budget.
 */
export async function reserveCascade(
  env: Env,
  cascadeId: string,
  projectId: string,
  kind: "writes" | "deliveries",
  n: number,
): Promise<void> {
  if (n <= 0) return;
  const d1 = cascadeHome(env, cascadeId, projectId);
  if (kind === "writes" && n > CASCADE_WRITES) throw new CascadeBudgetExceeded("writes", CASCADE_WRITES);
  const row = await statement(
    d1,
    kind === "writes" ? WRITES_SQL : DELIVERIES_SQL,
    cascadeId,
    projectId,
    n,
    Date.now(),
  ).first();
  if (!row) throw new CascadeBudgetExceeded(kind, kind === "writes" ? CASCADE_WRITES : CASCADE_DELIVERIES);
}

/** What a cascade has spent (exhaustedStatement's row). */
export interface CascadeSpent {
  writes: number;
  deliveries: number;
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
 * `r.n` is each run's place, `r.w_before`/`r.d_before` what the runs before it plan. RUN_FITS is the condition for
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
const RUN_FITS = `c.runs + r.n <= ${CASCADE_RUNS}
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
         WHERE ${RUN_FITS}
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
 * home `d1`, one batch — the cascade's row, the ids of the runs it can pay for (RUN_FITS, as createRunsStatements
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
    statement(d1, `WITH ${plannedRuns("?2")} SELECT r.id FROM r, c WHERE ${RUN_FITS}`, json, cascadeId),
    statement(
      d1,
      `WITH ${plannedRuns("?2")}, made AS (SELECT r.w, r.d FROM r, c WHERE ${RUN_FITS}) ${bookRuns("made")}`,
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
 * When each created run may start: the cascade's clock before them (`clock`, as createRunsStatements returned it,
 * less what these runs added) is where the first one's turn begins, each next one's turn after the cost (writes
 * and deliveries it planned) of those before it; a turn up to CASCADE_BURST writes ahead of `now` starts at once,
 * a later one waits the difference (whole seconds, as the Queue delays messages).
 */
export function runStartDelays(clock: number, now: number, costs: readonly number[]): number[] {
  const total = costs.reduce((a, c) => a + c, 0);
  let turn = clock - total * PACE_MS_PER_WRITE;
  const burstMs = CASCADE_BURST * PACE_MS_PER_WRITE;
  return costs.map((cost) => {
    const delay = Math.max(0, Math.ceil((turn - now - burstMs) / 1000));
    turn += cost * PACE_MS_PER_WRITE;
    return delay;
  });
}

/**
 * The Queue delays of runs just created (undefined: none): the runs a person's write causes directly start at once,
 * runs caused by runs (`causedByRun`) wait their turns on the cascade's clock (runStartDelays). Both kinds have
 * booked their cost on the clock already, so whatever the direct runs cause waits behind them.
 */
export function startDelaysOf(
  causedByRun: boolean,
  clock: number,
  now: number,
  costs: readonly number[],
): number[] | undefined {
  return causedByRun ? runStartDelays(clock, now, costs) : undefined;
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

export const utcDay = (t: number) => new Date(t).toISOString().slice(0, 10);

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

/** Skips the cascade's queued runs in the shard database `d1` (of the run's project `projectId`) that its spent budget leaves nothing to do (skipQueuedRunsStatement). */
export async function skipQueuedRuns(env: Env, d1: D1Database, projectId: string, cascadeId: string): Promise<void> {
  let spent: CascadeSpent | null = null;
  if (foreignCascade(cascadeId, projectId)) {
    spent = await exhaustedStatement(cascadeHome(env, cascadeId, projectId), cascadeId).first<CascadeSpent>();
    if (!spent) return;
  }
  await d1.batch([skipQueuedRunsStatement(d1, cascadeId, Date.now(), spent)]);
}
