/**
 * Cascade budgets (docs/api-guide.md, "Automations: cascades are bounded as a whole"). Everything one cause sets
 * off — a person's write, a manual run, a scheduled firing, and every retry of a run it caused — shares one row of
 * `automation_cascades`: at most CASCADE_WRITES automation writes (rows, documents, notifications) and
 * CASCADE_DELIVERIES webhook deliveries across every depth, and at most CASCADE_RUNS runs created by its events.
 * Each reservation is one conditional UPSERT (the row is created on first use), so concurrent runs of one
 * cascade never pass the budget together. A project starts at most DAILY_RUNS runs per UTC day.
 *
 * The statements (built in ./cascadeQueries.ts) go to the raw D1 binding of the cascade's home (they guard the runs, so a run's own
 * `operationBudget` does not pay for them). A cascade's row lives in one shard database, the one its id names: the
 * id is issued beside the project where the cause happened (a run's id for a manual, scheduled or retried run; an id
 * beside the written project for a person's write), so the row sits with that project's automations and runs and
 * moves with its logical shard. A cascade whose writes reach an organization on another shard database carries its
 * id there: the runs it causes there are reserved on, and charge, the one row at home (cascadeHome,
 * foreignCascade), so one cause's budget holds across every database it reaches (docs/scaling.md "Automations
 * across organizations"). Ids of the older plain form name no home: their row is the project's own.
 */
import type { Env } from "../../env";
import { uncountedD1 } from "../../db/instrument";
import { bindingHolding, type ShardBinding } from "./shards";
import { d1Holding } from "../context";
import { shardNumberOfId } from "../../lib/ids";
import { exhaustedStatement, reserveStatement, skipQueuedRunsStatement } from "./cascadeQueries";

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
  const row = await reserveStatement(d1, kind, cascadeId, projectId, n, Date.now()).first();
  if (!row) throw new CascadeBudgetExceeded(kind, kind === "writes" ? CASCADE_WRITES : CASCADE_DELIVERIES);
}

/** What a cascade has spent (exhaustedStatement's row). */
export interface CascadeSpent {
  writes: number;
  deliveries: number;
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

export const utcDay = (t: number) => new Date(t).toISOString().slice(0, 10);

/** Skips the cascade's queued runs in the shard database `d1` (of the run's project `projectId`) that its spent budget leaves nothing to do (skipQueuedRunsStatement). */
export async function skipQueuedRuns(env: Env, d1: D1Database, projectId: string, cascadeId: string): Promise<void> {
  let spent: CascadeSpent | null = null;
  if (foreignCascade(cascadeId, projectId)) {
    spent = await exhaustedStatement(cascadeHome(env, cascadeId, projectId), cascadeId).first<CascadeSpent>();
    if (!spent) return;
  }
  await d1.batch([skipQueuedRunsStatement(d1, cascadeId, Date.now(), spent)]);
}
