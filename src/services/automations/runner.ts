/**
 * The run executor (docs/api-guide.md › Automations, published portals, collaborative editing), called by the Queue
 * consumer with a run id. A run is claimed with a conditional UPDATE (queued → running), so a redelivered message
 * never executes it twice. It then acts as the system for the automation's owner at the run's depth (the owner's
 * rights as they are now, src/auth/access.ts), evaluates `conditions` (runStart.ts), executes the actions in order
 * through the same service verbs the HTTP routes use (runActions.ts, actions.ts), and enforces the budgets while
 * running (budget.ts). The first excess stops the run. The events of its writes are emitted once the run is recorded, at its depth: past
 * MAX_DEPTH nothing is enqueued.
 *
 * Where (docs/scaling.md): the run, its automation, its project's day and its cascade live in the shard database
 * the run's id names (every one of them is issued beside the automation); the owner's notices go to the directory
 * through the shard's outbox, written in the batch that records the run (docs/scaling.md "Notifications: an outbox").
 */
import { and, eq, sql } from "drizzle-orm";
import { automationRuns, automations } from "../../db/schema";
import type { DatabaseBinding, Db, Env } from "../../env";
import { createDb } from "../../db/client";
import { ApiError } from "../../errors";
import { automationActor, cascadeOf, d1Holding, depthOf, serviceContext, type Actor } from "../context";
import { emitEvents, type EventInput } from "../events/events";
import type { ActiveRun } from "./actions";
import { Budget, DEFAULT_BEHAVIOR, budgetedD1 } from "./budget";
import { skipQueuedRuns } from "./cascade";
import { deadLetteredRunNoticeStatement, runNoticeStatements, type ActionNotice } from "./notify";
import { deliverAtOnce, type OutboxRow } from "../notifications/outbox";
import type { ActionRecord, RunRow } from "./serialize";
import { loadRunInputs, prepare, refusal } from "./runStart";
import { notRunRecords, runActions, type Verdict } from "./runActions";

export const DISABLE_AFTER_FAILURES = 5;

export type RunResult = "executed" | "duplicate" | "missing";

/** queued → running, once; when the run is not queued, whether it was already taken or is not there. */
async function claimRun(db: Db, runId: string, startedAt: number): Promise<RunRow | RunResult> {
  const [run] = await db
    .update(automationRuns)
    .set({ status: "running", startedAt, updatedAt: startedAt })
    .where(and(eq(automationRuns.id, runId), eq(automationRuns.status, "queued")))
    .returning();
  if (run) return run;
  const [exists] = await db.select({ id: automationRuns.id }).from(automationRuns).where(eq(automationRuns.id, runId));
  return exists ? "duplicate" : "missing";
}

interface RunEnd {
  run: RunRow;
  verdict: Verdict;
  budget: Budget;
  records: ActionRecord[];
  deliveryIds: string[];
  notices: ActionNotice[];
  /** The automation's owner, when the run acted for one (the notify actions' notices are theirs). */
  ownerId: string | null;
  finishedAt: number;
}

/**
 * The run's record, the automation's failure count (disabled after DISABLE_AFTER_FAILURES in a row) and the owner's
 * notices, in one batch: the notify actions' notices; that the automation was disabled; the run's outcome when the
 * owner asked for it (notify.inApp). The notices go to the shard's outbox (ids derived from the run, so a run
 * recorded again cannot add a second); returns the outbox rows written, for deliverAtOnce.
 */
async function recordRun(db: Db, end: RunEnd): Promise<OutboxRow[]> {
  const { run, verdict, budget, finishedAt } = end;
  const failed = verdict.status === "failed";
  const counted = verdict.status !== "skipped";
  const over = sql`${automations.consecutiveFailures} + 1 >= ${DISABLE_AFTER_FAILURES}`;
  const notices = runNoticeStatements(db, {
    run,
    status: verdict.status,
    reason: String(verdict.error?.message ?? verdict.error?.code ?? ""),
    affectedRows: budget.affectedRows,
    ownerId: end.ownerId,
    notices: end.notices,
    finishedAt,
    disableAfter: DISABLE_AFTER_FAILURES,
  });
  const results = await db.batch([
    db
      .update(automationRuns)
      .set({
        status: verdict.status,
        finishedAt,
        operations: budget.operations,
        affectedRows: budget.affectedRows,
        externalWrites: budget.externalWrites,
        error: verdict.error,
        actions: end.records as unknown as Record<string, unknown>[],
        deliveryIds: end.deliveryIds,
        updatedAt: finishedAt,
      })
      .where(eq(automationRuns.id, run.id)),
    db
      .update(automations)
      .set({
        lastRunAt: finishedAt,
        consecutiveFailures: counted
          ? failed
            ? sql`${automations.consecutiveFailures} + 1`
            : 0
          : sql`${automations.consecutiveFailures}`,
        enabled: failed ? sql`CASE WHEN ${over} THEN 0 ELSE ${automations.enabled} END` : sql`${automations.enabled}`,
        nextRunAt: failed
          ? sql`CASE WHEN ${over} THEN NULL ELSE ${automations.nextRunAt} END`
          : sql`${automations.nextRunAt}`,
      })
      .where(eq(automations.id, run.automationId)),
    ...notices,
  ]);
  return (results.slice(2) as OutboxRow[][]).flat();
}

/**
 * The context a run acts in: the owner's rights at the run's depth, on the automation's shard database, with every
 * round trip to any database (the shard, the directory for notices, another shard an action names) charged to the
 * run's budget first.
 */
function runContext(
  env: Env,
  budget: Budget,
  actor: Actor,
  automationId: string,
  opts: { now: number; outbox: EventInput[] },
) {
  const budgeted = new Map<DatabaseBinding, D1Database>();
  const d1Of = (binding: DatabaseBinding): D1Database => {
    let d1 = budgeted.get(binding);
    if (!d1) {
      const raw = binding === "DB" ? env.DB : env[binding];
      if (!raw) throw new ApiError("InternalError", `No D1 binding ${binding}`);
      d1 = budgetedD1(raw, budget);
      budgeted.set(binding, d1);
    }
    return d1;
  };
  const clients = new Map<DatabaseBinding, Db>();
  const database = (binding: DatabaseBinding): Db => {
    let client = clients.get(binding);
    if (!client) {
      client = createDb(d1Of(binding));
      clients.set(binding, client);
    }
    return client;
  };
  // Services that open a binding from `env` themselves meet the budgeted ones too.
  const unbudgeted = serviceContext(env, database("DB"), actor, { ...opts, database });
  const shards = Object.fromEntries(unbudgeted.everyShard().map(({ binding }) => [binding, d1Of(binding)]));
  const ctx = serviceContext({ ...env, ...shards, DB: d1Of("DB") }, database("DB"), actor, { ...opts, database });
  return ctx.on(automationId);
}

/** Claims and executes one run. Never throws for a failure of the run itself: that is recorded on the run. */
export async function executeRun(env: Env, runId: string): Promise<RunResult> {
  const d1 = d1Holding(env, runId);
  const db = createDb(d1);
  const startedAt = Date.now();
  const run = await claimRun(db, runId, startedAt);
  if (typeof run === "string") return run;
  const cascadeId = run.cascadeId ?? run.id;
  const inputs = await loadRunInputs(env, d1, db, run, cascadeId, startedAt);
  const records = notRunRecords(inputs.automation);
  const budget = new Budget(inputs.automation?.behavior ?? DEFAULT_BEHAVIOR, startedAt);
  const deliveryIds: string[] = [];
  const notices: ActionNotice[] = [];
  const outbox: EventInput[] = [];
  let actor: Actor | null = null;
  let verdict = await refusal(env, d1, run, inputs, startedAt);
  if (!verdict) {
    const automation = inputs.automation!;
    const owner = inputs.owner!;
    actor = automationActor(
      {
        _id: owner.id,
        email: owner.email,
        name: owner.name,
        tokenId: `automation:${automation.id}`,
        tokenExpiresAt: null,
      },
      { id: automation.id, runId: run.id, cascadeId },
      run.depth,
    );
    const ctx = runContext(env, budget, actor, automation.id, { now: startedAt, outbox });
    const ar: ActiveRun = {
      ctx,
      automation,
      run,
      budget,
      cascadeId,
      triggerRow: null,
      selected: null,
      deliveryIds,
      notices,
    };
    verdict = (await prepare(ar)) ?? (await runActions(ar, records));
  }
  if (verdict.error?.code === "CascadeBudgetExceeded") await skipQueuedRuns(env, d1, run.projectId, cascadeId);
  const end: RunEnd = {
    run,
    verdict,
    budget,
    records,
    deliveryIds,
    notices,
    ownerId: inputs.owner?.id ?? null,
    finishedAt: Date.now(),
  };
  // The notices reach the directory, where the owner's GET /notification/all reads them, once the run is recorded;
  // what this leaves in the outbox the tick delivers.
  await deliverAtOnce(env, d1, await recordRun(db, end));
  // The writes' events, at the run's depth and in its cascade (past MAX_DEPTH nothing is enqueued).
  if (actor && outbox.length) await emitEvents(env, outbox, depthOf(actor), cascadeOf(actor));
  return "executed";
}

/**
 * For the dead-letter consumer and stale sweeps: a run that will not execute any more is failed, and its owner told
 * (the notice written to the outbox in the same batch, before the update and only while the run is still open).
 */
export async function failRunForGood(env: Env, runId: string, reason: string): Promise<void> {
  const d1 = d1Holding(env, runId);
  const db = createDb(d1);
  const t = Date.now();
  const [inserted] = await db.batch([
    deadLetteredRunNoticeStatement(db, runId, reason, t),
    db
      .update(automationRuns)
      .set({ status: "failed", finishedAt: t, updatedAt: t, error: { code: "DeadLettered", message: reason } })
      .where(and(eq(automationRuns.id, runId), sql`${automationRuns.status} IN ('queued', 'running')`)),
  ]);
  await deliverAtOnce(env, d1, inserted);
}
