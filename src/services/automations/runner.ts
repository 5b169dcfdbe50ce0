/**
 * The run executor (docs/api-guide.md › Automations, published portals, collaborative editing), called by the Queue consumer with a run id. A run is claimed with a
 * conditional UPDATE (queued → running), so a redelivered message never executes it twice. It then acts with the
 * owner's rights as they are now (src/auth/access.ts with the owner as the user), evaluates `conditions`,
 * executes the actions in order through the same services the HTTP routes use, and enforces the budgets while
 * running: every D1 round trip of an action counts against `operationBudget` (the statement is refused before
 * it runs), rows are reserved against `maxAffectedRows` before they are written, webhook deliveries against
 * `externalWriteBudget`, and the clock against `maxDurationMs`. The first excess stops the run.
 */
import { and, eq, sql } from "drizzle-orm";
import { automationDeliveries, automationRuns, automations, cells, columns as columnsTable, notifications, rows as rowsTable, users } from "../../db/schema";
import type { AuthUser, Db, Env } from "../../env";
import { createDb } from "../../db/client";
import { countingD1 } from "../../db/instrument";
import { ApiError, notFound } from "../../errors";
import { newId } from "../../lib/ids";
import { requireColumnForWrite, requireDocument, requireProject, requireTable, type AutomationRow } from "../../auth/access";
import { createRows, listRows } from "../../services/tables/rows";
import { checkCellWrite } from "../../services/tables/cellValues";
import { recalculateFormulasAfterWrite } from "../../services/tables/recompute";
import { checkParentFolder, prepareCreateDocument } from "../../services/documents/mutations";
import { applyFormulaThroughCoordinator } from "../../services/formula/coordinator";
import type { ConditionValue } from "../../schemas/automations";
import type { StoredAction, StoredBehavior } from "../../db/schema";
import { conditionHolds, hasTests } from "./conditions";
import { emitEvents, type EventInput } from "./events";
import { enqueueAll } from "./messages";
import type { ActionRecord, RunRow } from "./serialize";
import { systemContext } from "../context";
import { notifyAutomationOwner } from "./notify";
import { CascadeBudgetExceeded, DAILY_RUNS, claimDayNoticeStatement, dayRunStatement, exhaustedStatement, reserveCascade, skipQueuedRunsStatement } from "./cascade";

export const DISABLE_AFTER_FAILURES = 5;
export const PACE_MAX_MS = 250;

export class BudgetExceeded extends Error {
  constructor(readonly budget: keyof StoredBehavior, readonly limit: number, readonly used: number) {
    super(`Budget ${budget} exceeded: ${used} > ${limit}`);
  }
  toJSON() {
    return { code: "BudgetExceeded", message: this.message, budget: this.budget, limit: this.limit, used: this.used };
  }
}

export class Budget {
  operations = 0;
  affectedRows = 0;
  externalWrites = 0;
  constructor(readonly limits: StoredBehavior, readonly startedAt: number) {}

  checkTime() {
    const used = Date.now() - this.startedAt;
    if (used > this.limits.maxDurationMs) throw new BudgetExceeded("maxDurationMs", this.limits.maxDurationMs, used);
  }
  operation() {
    this.checkTime();
    if (this.operations + 1 > this.limits.operationBudget) throw new BudgetExceeded("operationBudget", this.limits.operationBudget, this.operations + 1);
    this.operations += 1;
  }
  reserveRows(n: number) {
    if (this.affectedRows + n > this.limits.maxAffectedRows) throw new BudgetExceeded("maxAffectedRows", this.limits.maxAffectedRows, this.affectedRows + n);
    this.affectedRows += n;
  }
  reserveExternal(n: number) {
    if (this.externalWrites + n > this.limits.externalWriteBudget) throw new BudgetExceeded("externalWriteBudget", this.limits.externalWriteBudget, this.externalWrites + n);
    this.externalWrites += n;
  }
}

/** A D1 binding whose every round trip is charged to the budget first (refused when over). */
function budgetedD1(d1: D1Database, budget: Budget): D1Database {
  const counter = {
    get count() {
      return budget.operations;
    },
    set count(_v: number) {
      budget.operation();
    },
  };
  return countingD1(d1, counter);
}

export function errorInfo(err: unknown): Record<string, unknown> {
  if (err instanceof BudgetExceeded || err instanceof CascadeBudgetExceeded) return err.toJSON();
  if (err instanceof ApiError) return { code: err.code, message: err.message, ...(err.details ? { details: err.details } : {}) };
  return { code: "InternalError", message: "The action failed unexpectedly" };
}

type RowWithCells = { id: string; tableId: string; projectId: string; isDeleted: boolean; cells: Record<string, unknown> };

async function loadRowAnyState(db: Db, rowId: string): Promise<RowWithCells | null> {
  const [found] = await db
    .select({
      row: rowsTable,
      cells: sql<string | null>`(SELECT json_group_object(c.column_id, json(c.data)) FROM cells c WHERE c.row_id = "rows"."id" AND c.is_deleted = 0)`,
    })
    .from(rowsTable)
    .where(eq(rowsTable.id, rowId));
  if (!found) return null;
  return { id: found.row.id, tableId: found.row.tableId, projectId: found.row.projectId, isDeleted: found.row.isDeleted, cells: found.cells ? JSON.parse(found.cells) : {} };
}

interface RunContext {
  env: Env;
  /** Drizzle over the budgeted D1. */
  db: Db;
  /** Bindings whose DB is the budgeted D1, for services that use env.DB directly. */
  actionEnv: Env;
  owner: AuthUser;
  automation: AutomationRow;
  run: RunRow;
  budget: Budget;
  triggerRow: RowWithCells | null;
  selected: RowWithCells[] | null;
  deliveryIds: string[];
  events: EventInput[];
  /** The cascade this run belongs to (cascade.ts): writes and deliveries are reserved there before they happen. */
  cascadeId: string;
}

function reserveWrites(rc: RunContext, n: number) {
  return reserveCascade(rc.env, rc.cascadeId, rc.automation.projectId, "writes", n);
}

/** Rows a row-scoped action works on: those `conditions` selected, else the triggering row. */
function baseTargets(rc: RunContext): RowWithCells[] {
  if (rc.selected) return rc.selected;
  return rc.triggerRow && !rc.triggerRow.isDeleted ? [rc.triggerRow] : [];
}

interface ActionOutcome {
  affectedRows: number;
  skipped?: boolean;
}

async function runAction(rc: RunContext, action: StoredAction): Promise<ActionOutcome> {
  const spec = action.spec as Record<string, unknown> & { kind: string };
  const condition = action.condition as ConditionValue | undefined;
  const gated = hasTests(condition);
  let targets = baseTargets(rc);
  if (gated) targets = targets.filter((r) => conditionHolds(condition, r.cells));
  const contextRows = rc.selected ?? (rc.triggerRow ? [rc.triggerRow] : []);
  const gateOpen = !gated || contextRows.some((r) => conditionHolds(condition, r.cells));

  switch (spec.kind) {
    case "row.create": {
      if (!gateOpen) return { affectedRows: 0, skipped: true };
      const { table } = await requireTable(rc.db, rc.owner, String(spec.tableId), "write");
      rc.budget.reserveRows(1);
      await reserveWrites(rc, 1);
      const { rows } = await createRows(rc.db, rc.actionEnv, table, rc.owner._id, [(spec.cells as Record<string, unknown>) ?? {}], { pathOf: () => "spec.cells" });
      const written = Object.keys((spec.cells as Record<string, unknown>) ?? {});
      rc.events.push(...rows.map((r) => ({ event: "row.created" as const, projectId: table.projectId, tableId: table.id, rowId: r.id, columnIds: written, documentIds: table.documentId ? [table.documentId] : [] })));
      return { affectedRows: 1 };
    }
    case "row.update":
    case "row.delete": {
      if (spec.tableId) targets = targets.filter((r) => r.tableId === spec.tableId);
      if (targets.length === 0) return { affectedRows: 0, skipped: true };
      const tableIds = [...new Set(targets.map((r) => r.tableId))];
      const tables = new Map<string, Awaited<ReturnType<typeof requireTable>>["table"]>();
      for (const id of tableIds) tables.set(id, (await requireTable(rc.db, rc.owner, id, "write")).table);
      rc.budget.reserveRows(targets.length);
      await reserveWrites(rc, targets.length);
      if (spec.kind === "row.delete") {
        const ids = targets.map((r) => r.id);
        await rc.db.update(rowsTable).set({ isDeleted: true, updatedAt: Date.now() }).where(sql`${rowsTable.id} IN (SELECT value FROM json_each(${JSON.stringify(ids)}))`);
        for (const r of targets) {
          const t = tables.get(r.tableId)!;
          rc.events.push({ event: "row.deleted", projectId: t.projectId, tableId: t.id, rowId: r.id, documentIds: t.documentId ? [t.documentId] : [] });
        }
        return { affectedRows: targets.length };
      }
      const set = (spec.set as Record<string, unknown>) ?? {};
      const columnIds = Object.keys(set);
      const cols = columnIds.length
        ? await rc.db.select().from(columnsTable).where(and(sql`${columnsTable.id} IN (SELECT value FROM json_each(${JSON.stringify(columnIds)}))`, eq(columnsTable.isDeleted, false)))
        : [];
      const byId = new Map(cols.map((c) => [c.id, c]));
      const t = Date.now();
      const statements = [];
      for (const r of targets) {
        for (const columnId of columnIds) {
          const column = byId.get(columnId);
          if (!column || column.tableId !== r.tableId) throw notFound("Column");
          checkCellWrite(column, set[columnId]);
          const table = tables.get(r.tableId)!;
          statements.push(
            rc.db
              .insert(cells)
              .values({ id: newId(), tableId: table.id, rowId: r.id, columnId, workspaceId: table.workspaceId, isIdentifier: column.isIdentifier, data: set[columnId], createdAt: t, updatedAt: t })
              .onConflictDoUpdate({ target: [cells.rowId, cells.columnId], set: { data: sql`excluded.data`, isIdentifier: column.isIdentifier, isDeleted: false, updatedAt: t } }),
          );
        }
      }
      const rowIds = targets.map((r) => r.id);
      statements.push(rc.db.update(rowsTable).set({ updatedAt: t }).where(sql`${rowsTable.id} IN (SELECT value FROM json_each(${JSON.stringify(rowIds)}))`));
      await rc.db.batch(statements as unknown as [typeof statements[0]]);
      for (const tableId of tableIds) {
        rc.budget.operation();
        await recalculateFormulasAfterWrite(rc.actionEnv, tableId, targets.filter((r) => r.tableId === tableId).map((r) => r.id));
      }
      for (const r of targets) {
        const table = tables.get(r.tableId)!;
        rc.events.push({ event: "row.updated", projectId: table.projectId, tableId: table.id, rowId: r.id, columnIds, documentIds: table.documentId ? [table.documentId] : [] });
      }
      return { affectedRows: targets.length };
    }
    case "formula.apply": {
      if (!gateOpen) return { affectedRows: 0, skipped: true };
      const { column, table } = await requireColumnForWrite(rc.db, rc.owner, String(spec.columnId));
      if (!column.formula) throw new ApiError("UnprocessableEntityError", "The column has no formula to apply");
      rc.budget.operation();
      const result = await applyFormulaThroughCoordinator(rc.actionEnv, {
        tableId: table.id,
        columnId: column.id,
        description: column.formula.description as never,
        expression: column.formula.expression as never,
      });
      rc.budget.reserveRows(result.updatedRows);
      // The apply's row count is known only afterwards: charged to the cascade then (an exhausted cascade stops here).
      await reserveWrites(rc, result.updatedRows);
      return { affectedRows: result.updatedRows };
    }
    case "document.create": {
      if (!gateOpen) return { affectedRows: 0, skipped: true };
      if (!rc.automation.behavior.allowDocumentWrites) throw new BudgetExceeded("allowDocumentWrites", 0, 1);
      const parentId = (spec.parentId as string | null | undefined) ?? null;
      const { project } = await requireProject(rc.db, rc.owner, (spec.projectId as string | undefined) ?? rc.automation.projectId, parentId ? "read" : "write");
      if (parentId) {
        const parent = await requireDocument(rc.db, rc.owner, parentId, "edit");
        await checkParentFolder(rc.db, project.id, parent.doc, parentId);
      }
      await reserveWrites(rc, 1);
      // Not the request service (createDocument): a run's events carry its depth and go out with the run's.
      const { row: doc, statements } = await prepareCreateDocument(rc.db, rc.owner._id, project, { name: String(spec.name), type: (spec.type as "FOLDER" | "DOCUMENT" | undefined) ?? "DOCUMENT", parentId });
      await rc.db.batch(statements);
      rc.events.push({ event: "document.created", projectId: project.id, documentId: doc.id, documentIds: parentId ? [parentId] : [] });
      return { affectedRows: 0 };
    }
    case "notify": {
      if (!gateOpen) return { affectedRows: 0, skipped: true };
      await reserveWrites(rc, 1);
      await rc.db.insert(notifications).values({
        id: newId(),
        userId: rc.owner._id,
        kind: "automation.notify",
        title: String(spec.title),
        body: String(spec.body ?? ""),
        data: { automationId: rc.automation.id, runId: rc.run.id },
        createdAt: Date.now(),
      });
      return { affectedRows: 0 };
    }
    case "webhook": {
      if (!gateOpen) return { affectedRows: 0, skipped: true };
      rc.budget.reserveExternal(1);
      await reserveCascade(rc.env, rc.cascadeId, rc.automation.projectId, "deliveries", 1);
      const id = newId();
      const payload =
        spec.body !== undefined
          ? spec.body
          : {
              type: "automation.run",
              timestamp: new Date().toISOString(),
              data: {
                automationId: rc.automation.id,
                runId: rc.run.id,
                trigger: rc.run.trigger,
                ...(rc.triggerRow ? { row: { _id: rc.triggerRow.id, tableId: rc.triggerRow.tableId, cells: rc.triggerRow.cells } } : {}),
                ...(typeof rc.run.trigger.documentId === "string" ? { document: { _id: rc.run.trigger.documentId } } : {}),
              },
            };
      const t = Date.now();
      await rc.db.insert(automationDeliveries).values({
        id,
        automationId: rc.automation.id,
        runId: rc.run.id,
        actionId: action.id,
        url: String(spec.url),
        method: String(spec.method ?? "POST"),
        headers: (spec.headers as Record<string, string>) ?? {},
        body: JSON.stringify(payload),
        status: "pending",
        attempts: [],
        retryIndex: 0,
        nextAttemptAt: t,
        createdAt: t,
        updatedAt: t,
      });
      rc.deliveryIds.push(id);
      await enqueueAll(rc.env.AUTOMATION_QUEUE, [{ kind: "delivery", deliveryId: id }]);
      return { affectedRows: 0 };
    }
    default:
      throw new ApiError("UnprocessableEntityError", `Unknown action kind ${spec.kind}`);
  }
}

function withDeadline<T>(promise: Promise<T>, budget: Budget): Promise<T> {
  const remaining = budget.limits.maxDurationMs - (Date.now() - budget.startedAt);
  let timer: ReturnType<typeof setTimeout> | null = null;
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new BudgetExceeded("maxDurationMs", budget.limits.maxDurationMs, Date.now() - budget.startedAt)), Math.max(0, remaining));
  });
  return Promise.race([promise, deadline]).finally(() => {
    if (timer !== null) clearTimeout(timer);
  });
}

async function selectRows(rc: RunContext, condition: ConditionValue): Promise<RowWithCells[]> {
  const { table } = await requireTable(rc.db, rc.owner, String(condition.tableId), "read");
  const out: RowWithCells[] = [];
  let cursor: string | undefined;
  do {
    const page = await listRows(rc.db, table, { limit: 1000, cursor });
    for (const r of page.data) {
      if (conditionHolds(condition, r.cells)) out.push({ id: r._id, tableId: table.id, projectId: table.projectId, isDeleted: false, cells: r.cells });
    }
    cursor = page.nextCursor ?? undefined;
  } while (cursor);
  return out;
}

export type RunResult = "executed" | "duplicate" | "missing";

/** Claims and executes one run. Never throws for a failure of the run itself: that is recorded on the run. */
export async function executeRun(env: Env, runId: string): Promise<RunResult> {
  const db = createDb(env.DB);
  const startedAt = Date.now();
  const [run] = await db
    .update(automationRuns)
    .set({ status: "running", startedAt, updatedAt: startedAt })
    .where(and(eq(automationRuns.id, runId), eq(automationRuns.status, "queued")))
    .returning();
  if (!run) {
    const [exists] = await db.select({ id: automationRuns.id }).from(automationRuns).where(eq(automationRuns.id, runId));
    return exists ? "duplicate" : "missing";
  }
  const cascadeId = run.cascadeId ?? run.id;
  // The automation and its owner; the project's runs today (this one counted) and the cascade's state.
  const [foundRows, [dayRows, cascadeRows]] = await Promise.all([
    db.select({ automation: automations, owner: users }).from(automations).leftJoin(users, eq(users.id, automations.ownerId)).where(eq(automations.id, run.automationId)),
    env.DB.batch<{ runs?: number; exhausted?: number }>([dayRunStatement(env.DB, run.projectId, startedAt), exhaustedStatement(env.DB, cascadeId)]),
  ]);
  const found = foundRows[0];
  const automation = found?.automation;
  const dayRuns = Number(dayRows!.results[0]?.runs ?? 0);
  const cascadeExhausted = Boolean(cascadeRows!.results[0]?.exhausted);
  const records: ActionRecord[] = (automation?.actions ?? []).map((a) => ({
    id: a.id,
    kind: a.spec.kind,
    status: "notRun",
    startedAt: null,
    finishedAt: null,
    operations: 0,
    affectedRows: 0,
    error: null,
  }));
  const budget = new Budget(automation?.behavior ?? { maxDurationMs: 30_000, operationBudget: 1000, maxAffectedRows: 1000, externalWriteBudget: 10, allowDocumentWrites: false }, startedAt);
  let status: "succeeded" | "failed" | "skipped" = "succeeded";
  let error: Record<string, unknown> | null = null;
  const deliveryIds: string[] = [];
  const events: EventInput[] = [];

  if (!automation || automation.isDeleted || !found?.owner) {
    status = "failed";
    error = { code: "AutomationDeleted", message: "The automation no longer exists" };
  } else if (!automation.enabled) {
    // Disabled means never run: not by an event, a schedule, a person or a retry queued before it was disabled.
    status = "skipped";
    error = { code: "Disabled", message: "The automation was disabled before this run started" };
  } else if (dayRuns > DAILY_RUNS) {
    status = "skipped";
    error = { code: "DailyRunLimitExceeded", message: `The project has started ${DAILY_RUNS} automation runs today (UTC)`, limit: DAILY_RUNS };
    const [first] = (await env.DB.batch([claimDayNoticeStatement(env.DB, run.projectId, startedAt)]))[0]!.results as unknown[];
    if (first) {
      await notifyAutomationOwner(db, automation.id, {
        kind: "automation.dailyLimit",
        title: () => "Automations paused for today",
        body: `This project started ${DAILY_RUNS} automation runs today (UTC); further runs are skipped until midnight UTC.`,
        data: { automationId: automation.id, runId: run.id, projectId: run.projectId },
        at: startedAt,
      });
    }
  } else if (cascadeExhausted) {
    status = "skipped";
    error = { code: "CascadeBudgetExceeded", message: "The cascade this run belongs to has used its budget for its cause" };
  } else {
    const owner: AuthUser = { _id: found.owner.id, email: found.owner.email, name: found.owner.name, tokenId: `automation:${automation.id}`, tokenExpiresAt: null };
    const budgeted = budgetedD1(env.DB, budget);
    const rc: RunContext = {
      env,
      db: createDb(budgeted),
      actionEnv: { ...env, DB: budgeted },
      owner,
      automation,
      run,
      budget,
      triggerRow: null,
      selected: null,
      deliveryIds,
      events,
      cascadeId,
    };
    try {
      // The owner's rights as they are now: an owner removed from the project makes the run fail, not act.
      await requireProject(rc.db, owner, automation.projectId, "read").catch(() => {
        throw new ApiError("ForbiddenError", "The automation's owner can no longer read its project");
      });
      if (typeof run.trigger.rowId === "string") {
        const row = await loadRowAnyState(rc.db, run.trigger.rowId);
        if (row) {
          await requireTable(rc.db, owner, row.tableId, "read").catch(() => {
            throw new ApiError("ForbiddenError", "The automation's owner can no longer read the triggering row");
          });
          rc.triggerRow = row;
        }
      }
      const conditions = automation.conditions as ConditionValue | null;
      if (hasTests(conditions)) {
        if (rc.triggerRow) rc.selected = conditionHolds(conditions, rc.triggerRow.cells) ? [rc.triggerRow] : [];
        else if (conditions.tableId) rc.selected = await selectRows(rc, conditions);
        else rc.selected = [];
        if (rc.selected.length === 0) status = "skipped";
      }
    } catch (err) {
      status = "failed";
      error = errorInfo(err);
    }
    if (status === "succeeded") {
      for (let i = 0; i < automation.actions.length; i++) {
        const action = automation.actions[i]!;
        const record = records[i]!;
        const opsBefore = budget.operations;
        const rowsBefore = budget.affectedRows;
        record.startedAt = Date.now();
        try {
          budget.checkTime();
          const outcome = await withDeadline(runAction(rc, action), budget);
          record.status = outcome.skipped ? "skipped" : "succeeded";
        } catch (err) {
          record.status = "failed";
          record.error = errorInfo(err);
          if (err instanceof CascadeBudgetExceeded) {
            // The cause's budget, not this automation's fault: the run ends skipped (no failure counted).
            status = "skipped";
            error = record.error;
            break;
          }
          if (err instanceof BudgetExceeded || !action.continueOnError) {
            status = "failed";
            error = record.error;
          }
        } finally {
          record.finishedAt = Date.now();
          record.operations = budget.operations - opsBefore;
          record.affectedRows = budget.affectedRows - rowsBefore;
        }
        if (status !== "succeeded") break;
        // Paced: between actions the run rests as long as the last one took (at most PACE_MAX_MS), so a run — and
        // a cascade of them — uses at most half of the database's time and other tenants' requests go between.
        if (i < automation.actions.length - 1) await new Promise((r) => setTimeout(r, Math.min(PACE_MAX_MS, record.finishedAt! - record.startedAt!)));
      }
    }
  }

  if (error?.code === "CascadeBudgetExceeded") await env.DB.batch([skipQueuedRunsStatement(env.DB, cascadeId, Date.now())]);
  const finishedAt = Date.now();
  const failed = status === "failed";
  const counted = status !== "skipped";
  const [, updatedAutomations] = await db.batch([
    db
      .update(automationRuns)
      .set({
        status,
        finishedAt,
        operations: budget.operations,
        affectedRows: budget.affectedRows,
        externalWrites: budget.externalWrites,
        error,
        actions: records as unknown as Record<string, unknown>[],
        deliveryIds,
        updatedAt: finishedAt,
      })
      .where(eq(automationRuns.id, run.id)),
    db
      .update(automations)
      .set({
        lastRunAt: finishedAt,
        consecutiveFailures: counted ? (failed ? sql`${automations.consecutiveFailures} + 1` : 0) : sql`${automations.consecutiveFailures}`,
        enabled: failed ? sql`CASE WHEN ${automations.consecutiveFailures} + 1 >= ${DISABLE_AFTER_FAILURES} THEN 0 ELSE ${automations.enabled} END` : sql`${automations.enabled}`,
        nextRunAt: failed ? sql`CASE WHEN ${automations.consecutiveFailures} + 1 >= ${DISABLE_AFTER_FAILURES} THEN NULL ELSE ${automations.nextRunAt} END` : sql`${automations.nextRunAt}`,
      })
      .where(eq(automations.id, run.automationId))
      .returning({ consecutiveFailures: automations.consecutiveFailures, enabled: automations.enabled, ownerId: automations.ownerId, name: automations.name, notify: automations.notify }),
  ]);
  const after = updatedAutomations[0];
  const notes: (typeof notifications.$inferInsert)[] = [];
  if (after && failed && after.consecutiveFailures === DISABLE_AFTER_FAILURES && !after.enabled) {
    notes.push({
      id: newId(),
      userId: after.ownerId,
      kind: "automation.disabled",
      title: `Automation "${after.name}" was disabled`,
      body: `It failed ${DISABLE_AFTER_FAILURES} times in a row. Last error: ${String(error?.message ?? error?.code ?? "")}`,
      data: { automationId: run.automationId, runId: run.id },
      createdAt: finishedAt,
    });
  }
  if (after?.notify.inApp && counted) {
    notes.push({
      id: newId(),
      userId: after.ownerId,
      kind: failed ? "automation.run.failed" : "automation.run.succeeded",
      title: `Automation "${after.name}" ${failed ? "failed" : "ran"}`,
      body: failed ? String(error?.message ?? error?.code ?? "") : `${budget.affectedRows} row(s) affected`,
      data: { automationId: run.automationId, runId: run.id },
      createdAt: finishedAt,
    });
  }
  if (notes.length) await db.insert(notifications).values(notes);
  // Writes made by this run carry its depth (the run's service context); past MAX_DEPTH nothing is enqueued.
  const runCtx = systemContext(env, db, null, { depth: run.depth });
  if (events.length) await emitEvents(runCtx.env, events, runCtx.depth, cascadeId);
  return "executed";
}

/** For the dead-letter consumer and stale sweeps: a run that will not execute any more is failed, and its owner told. */
export async function failRunForGood(env: Env, runId: string, reason: string): Promise<void> {
  const db = createDb(env.DB);
  const t = Date.now();
  const [run] = await db
    .update(automationRuns)
    .set({ status: "failed", finishedAt: t, updatedAt: t, error: { code: "DeadLettered", message: reason } })
    .where(and(eq(automationRuns.id, runId), sql`${automationRuns.status} IN ('queued', 'running')`))
    .returning();
  if (!run) return;
  await notifyAutomationOwner(db, run.automationId, {
    kind: "automation.run.failed",
    title: (name) => `Automation "${name}" could not run`,
    body: reason,
    data: { automationId: run.automationId, runId },
    at: t,
  });
}
