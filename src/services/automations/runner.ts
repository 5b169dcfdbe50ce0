/**
 * The run executor (docs/api-guide.md › Automations, published portals, collaborative editing), called by the Queue
 * consumer with a run id. A run is claimed with a conditional UPDATE (queued → running), so a redelivered message
 * never executes it twice. It then acts as the system for the automation's owner at the run's depth (the owner's
 * rights as they are now, src/auth/access.ts), evaluates `conditions`, executes the actions in order through the
 * same service verbs the HTTP routes use (actions.ts), and enforces the budgets while running (budget.ts). The
 * first excess stops the run. The events of its writes are emitted once the run is recorded, at its depth: past
 * MAX_DEPTH nothing is enqueued.
 *
 * Where (docs/scaling.md): the run, its automation, its project's day and its cascade live in the shard database
 * the run's id names (every one of them is issued beside the automation); the owner's notices go to the directory
 * through the shard's outbox, written in the batch that records the run (docs/scaling.md "Notifications: an outbox").
 */
import { and, eq, sql } from "drizzle-orm";
import { automationRuns, automations, users } from "../../db/schema";
import type { DatabaseBinding, Db, Env } from "../../env";
import { createDb } from "../../db/client";
import { ApiError } from "../../errors";
import type { AutomationRow } from "../../auth/access";
import type { ConditionValue } from "../../schemas/automations";
import { automationActor, cascadeOf, depthOf, onShardOf, routeTo, serviceContext, type Actor } from "../context";
import { shardD1Of } from "../../db/shardIds";
import { shardBindings } from "../../db/shards";
import { emitEvents, type EventInput } from "../events/events";
import { getProject } from "../projects/projects";
import { getRowInAnyState, listRowsOfTable } from "../tables/rowReads";
import { rowCreateGroupSize, runAction, runRowCreateGroup, type ActiveRun, type RowWithCells } from "./actions";
import { Budget, BudgetExceeded, DEFAULT_BEHAVIOR, budgetedD1, errorInfo, withDeadline } from "./budget";
import { CascadeBudgetExceeded, DAILY_RUNS, cascadeHome, claimDayNoticeStatement, dayRunStatement, exhaustedStatement, foreignCascade, skipQueuedRuns } from "./cascade";
import { conditionHolds, hasTests } from "./conditions";
import { dailyLimitNoticeStatement, deadLetteredRunNoticeStatement, runNoticeStatements, type ActionNotice } from "./notify";
import { deliverAtOnce, outboxRowOf, type OutboxRow } from "../notifications/outbox";
import type { ActionRecord, RunRow } from "./serialize";

export const DISABLE_AFTER_FAILURES = 5;
export const PACE_MAX_MS = 250;

export type RunResult = "executed" | "duplicate" | "missing";

type OwnerRow = typeof users.$inferSelect;

/** How a run ends: its status and, unless it succeeded, why. */
interface Verdict {
  status: "succeeded" | "failed" | "skipped";
  error: Record<string, unknown> | null;
}

const SUCCEEDED: Verdict = { status: "succeeded", error: null };

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

interface RunInputs {
  automation: AutomationRow | undefined;
  owner: OwnerRow | null;
  /** The project's runs started today (UTC), this one counted. */
  dayRuns: number;
  cascadeExhausted: boolean;
}

/**
 * The automation and its owner (the shard's copy of the user); the project's runs today and the cascade's state,
 * in the run's shard database `d1` (the cascade's state at its home when that is another database).
 */
async function loadRunInputs(env: Env, d1: D1Database, db: Db, run: RunRow, cascadeId: string, startedAt: number): Promise<RunInputs> {
  // A cascade from another shard database (a run's write reached this organization) is read at its home, at the same time.
  const foreign = foreignCascade(cascadeId, run.projectId);
  const [foundRows, [dayRows, localCascade], homeCascade] = await Promise.all([
    db.select({ automation: automations, owner: users }).from(automations).leftJoin(users, eq(users.id, automations.ownerId)).where(eq(automations.id, run.automationId)),
    d1.batch<{ runs?: number; exhausted?: number }>([dayRunStatement(d1, run.projectId, startedAt), ...(foreign ? [] : [exhaustedStatement(d1, cascadeId)])]),
    foreign ? exhaustedStatement(cascadeHome(env, cascadeId, run.projectId), cascadeId).first<{ exhausted?: number }>() : null,
  ]);
  return {
    automation: foundRows[0]?.automation,
    owner: foundRows[0]?.owner ?? null,
    dayRuns: Number(dayRows!.results[0]?.runs ?? 0),
    cascadeExhausted: Boolean(foreign ? homeCascade?.exhausted : localCascade!.results[0]?.exhausted),
  };
}

/** Why a claimed run does not execute at all; null when it does. The project's first run over the day's limit tells the owner. */
async function refusal(env: Env, d1: D1Database, run: RunRow, inputs: RunInputs, startedAt: number): Promise<Verdict | null> {
  const { automation } = inputs;
  if (!automation || automation.isDeleted || !inputs.owner) return { status: "failed", error: { code: "AutomationDeleted", message: "The automation no longer exists" } };
  // Disabled means never run: not by an event, a schedule, a person or a retry queued before it was disabled.
  if (!automation.enabled) return { status: "skipped", error: { code: "Disabled", message: "The automation was disabled before this run started" } };
  if (inputs.dayRuns > DAILY_RUNS) {
    // The first run over the limit claims the day's notice, and writes the notice in the same batch (notify.ts).
    const notice = dailyLimitNoticeStatement(createDb(d1), run, startedAt, DAILY_RUNS).toSQL();
    const [inserted] = await d1.batch([d1.prepare(notice.sql).bind(...notice.params), claimDayNoticeStatement(d1, run.projectId, startedAt)]);
    await deliverAtOnce(env, d1, (inserted!.results as Record<string, unknown>[]).map(outboxRowOf));
    return { status: "skipped", error: { code: "DailyRunLimitExceeded", message: `The project has started ${DAILY_RUNS} automation runs today (UTC)`, limit: DAILY_RUNS } };
  }
  if (inputs.cascadeExhausted) return { status: "skipped", error: { code: "CascadeBudgetExceeded", message: "The cascade this run belongs to has used its budget for its cause" } };
  return null;
}

/** Live rows of the conditions' table that meet them, read through the rows listing the route uses. */
async function selectRows(ar: ActiveRun, condition: ConditionValue): Promise<RowWithCells[]> {
  const out: RowWithCells[] = [];
  let cursor: string | undefined;
  do {
    const page = await listRowsOfTable(onShardOf(ar.ctx, String(condition.tableId)), { tableId: String(condition.tableId), limit: 1000, cursor });
    for (const r of page.data) {
      if (conditionHolds(condition, r.cells)) out.push({ id: r._id, tableId: r.tableId, projectId: ar.automation.projectId, isDeleted: false, cells: r.cells });
    }
    cursor = page.nextCursor ?? undefined;
  } while (cursor);
  return out;
}

/**
 * Before any action: the owner can still read the project (else the run fails, it does not act), the triggering
 * row as it is now (deleted ones too) if the owner can read it, and the rows `conditions` select (none: skipped).
 */
async function prepare(ar: ActiveRun): Promise<Verdict | null> {
  try {
    // The project a trigger watches may be another (another organization's too): the owner must still read it, or
    // the run would tell them of events they can no longer see. Both checks at once.
    const watched = ar.run.trigger.projectId;
    await Promise.all([
      getProject(ar.ctx, ar.automation.projectId).catch(() => {
        throw new ApiError("ForbiddenError", "The automation's owner can no longer read its project");
      }),
      typeof watched === "string" && watched !== ar.automation.projectId
        ? getProject(onShardOf(ar.ctx, watched), watched).catch(() => {
            throw new ApiError("ForbiddenError", "The automation's owner can no longer read the project its trigger watches");
          })
        : null,
    ]);
    const rowId = ar.run.trigger.rowId;
    if (typeof rowId === "string") {
      // In the row's own shard database: a trigger may watch another organization's project (remoteTriggers.ts).
      const found = await getRowInAnyState(onShardOf(ar.ctx, rowId), rowId).catch(() => {
        throw new ApiError("ForbiddenError", "The automation's owner can no longer read the triggering row");
      });
      if (found) ar.triggerRow = { id: found.row.id, tableId: found.row.tableId, projectId: found.row.projectId, isDeleted: found.row.isDeleted, cells: found.cells };
    }
    const conditions = ar.automation.conditions as ConditionValue | null;
    if (!hasTests(conditions)) return null;
    if (ar.triggerRow) ar.selected = conditionHolds(conditions, ar.triggerRow.cells) ? [ar.triggerRow] : [];
    else if (conditions.tableId) ar.selected = await selectRows(ar, conditions);
    else ar.selected = [];
    return ar.selected.length === 0 ? { status: "skipped", error: null } : null;
  } catch (err) {
    return { status: "failed", error: errorInfo(err) };
  }
}

function notRunRecords(automation: AutomationRow | undefined): ActionRecord[] {
  return (automation?.actions ?? []).map((a) => ({ id: a.id, kind: a.spec.kind, status: "notRun", startedAt: null, finishedAt: null, operations: 0, affectedRows: 0, error: null }));
}

/** One action, recorded; the verdict that ends the run, or null to go on. */
async function runRecordedAction(ar: ActiveRun, index: number, record: ActionRecord): Promise<Verdict | null> {
  const action = ar.automation.actions[index]!;
  const { budget } = ar;
  const opsBefore = budget.operations;
  const rowsBefore = budget.affectedRows;
  record.startedAt = Date.now();
  try {
    budget.checkTime();
    const outcome = await withDeadline(runAction(ar, action), budget);
    record.status = outcome.skipped ? "skipped" : "succeeded";
    return null;
  } catch (err) {
    record.status = "failed";
    record.error = errorInfo(err);
    // The cause's budget, not this automation's fault: the run ends skipped (no failure counted).
    if (err instanceof CascadeBudgetExceeded) return { status: "skipped", error: record.error };
    if (err instanceof BudgetExceeded || !action.continueOnError) return { status: "failed", error: record.error };
    return null;
  } finally {
    record.finishedAt = Date.now();
    record.operations = budget.operations - opsBefore;
    record.affectedRows = budget.affectedRows - rowsBefore;
  }
}

/**
 * Actions from..from+n-1 written as one insert (actions.ts rowCreateGroupSize), recorded as each would be: the
 * same status, one row each, the group's time and operations shared. A refusal is each one's in turn (they are
 * alike): the first that does not continue on error ends the run and those after it are not run. "one by one"
 * when the group cannot be written together (nothing was done).
 */
async function runRecordedGroup(ar: ActiveRun, from: number, n: number, records: ActionRecord[]): Promise<Verdict | null | "one by one"> {
  const { budget } = ar;
  const opsBefore = budget.operations;
  const startedAt = Date.now();
  let error: Record<string, unknown> | null = null;
  let cascadeSpent = false;
  let budgetSpent = false;
  try {
    budget.checkTime();
    if ((await withDeadline(runRowCreateGroup(ar, from, n), budget)) === "one by one") return "one by one";
  } catch (err) {
    error = errorInfo(err);
    cascadeSpent = err instanceof CascadeBudgetExceeded;
    budgetSpent = err instanceof BudgetExceeded;
  }
  const finishedAt = Date.now();
  const ops = budget.operations - opsBefore;
  for (let k = 0; k < n; k++) {
    const record = records[from + k]!;
    Object.assign(record, { startedAt, finishedAt, operations: Math.floor(ops / n) + (k === 0 ? ops % n : 0) });
    if (!error) {
      Object.assign(record, { status: "succeeded", affectedRows: 1 });
      continue;
    }
    Object.assign(record, { status: "failed", error });
    if (cascadeSpent) return { status: "skipped", error };
    if (budgetSpent || !ar.automation.actions[from + k]!.continueOnError) return { status: "failed", error };
  }
  return null;
}

/**
 * The actions in order; consecutive row creations alike are written as one insert (runRecordedGroup). Paced:
 * between actions the run rests as long as the last one took (at most PACE_MAX_MS), so a run — and a cascade of
 * them — uses at most half of the database's time and other tenants' requests go between.
 */
async function runActions(ar: ActiveRun, records: ActionRecord[]): Promise<Verdict> {
  const count = ar.automation.actions.length;
  // Once a group did not fit the budgets, the rest go one by one (each meets its own limit).
  let grouping = true;
  for (let i = 0; i < count; ) {
    const t0 = Date.now();
    const n = grouping ? rowCreateGroupSize(ar, i) : 1;
    const grouped = n > 1 ? await runRecordedGroup(ar, i, n, records) : "one by one";
    if (n > 1 && grouped === "one by one") grouping = false;
    const stop = grouped === "one by one" ? await runRecordedAction(ar, i, records[i]!) : grouped;
    if (stop) return stop;
    i += grouped === "one by one" ? 1 : n;
    if (i < count) await new Promise((r) => setTimeout(r, Math.min(PACE_MAX_MS, Date.now() - t0)));
  }
  return SUCCEEDED;
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
        consecutiveFailures: counted ? (failed ? sql`${automations.consecutiveFailures} + 1` : 0) : sql`${automations.consecutiveFailures}`,
        enabled: failed ? sql`CASE WHEN ${over} THEN 0 ELSE ${automations.enabled} END` : sql`${automations.enabled}`,
        nextRunAt: failed ? sql`CASE WHEN ${over} THEN NULL ELSE ${automations.nextRunAt} END` : sql`${automations.nextRunAt}`,
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
function runContext(env: Env, budget: Budget, actor: Actor, automationId: string, opts: { now: number; outbox: EventInput[] }) {
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
  const shards = Object.fromEntries(shardBindings().map((b) => [b, d1Of(b)]));
  const ctx = serviceContext({ ...env, ...shards, DB: d1Of("DB") }, database("DB"), actor, { ...opts, database });
  return routeTo(ctx, automationId);
}

/** Claims and executes one run. Never throws for a failure of the run itself: that is recorded on the run. */
export async function executeRun(env: Env, runId: string): Promise<RunResult> {
  const d1 = shardD1Of(env, runId);
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
    actor = automationActor({ _id: owner.id, email: owner.email, name: owner.name, tokenId: `automation:${automation.id}`, tokenExpiresAt: null }, { id: automation.id, runId: run.id, cascadeId }, run.depth);
    const ctx = runContext(env, budget, actor, automation.id, { now: startedAt, outbox });
    const ar: ActiveRun = { ctx, automation, run, budget, cascadeId, triggerRow: null, selected: null, deliveryIds, notices };
    verdict = (await prepare(ar)) ?? (await runActions(ar, records));
  }
  if (verdict.error?.code === "CascadeBudgetExceeded") await skipQueuedRuns(env, d1, run.projectId, cascadeId);
  const end: RunEnd = { run, verdict, budget, records, deliveryIds, notices, ownerId: inputs.owner?.id ?? null, finishedAt: Date.now() };
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
  const d1 = shardD1Of(env, runId);
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
