/**
 * An automation's actions. Each one calls the verb the HTTP route calls — createRow, updateCells, deleteRows,
 * applyComputedColumn, createDocument — with the run's service context: the system acting for the automation's
 * owner (the owner's rights as they are now) at the run's depth, over the budgeted D1. So an action gets the
 * route's validation, recalculation and events; its events wait in the context's outbox until the run is recorded.
 * What is the run's own to do here is reserving the budgets before a write, and the automation's own records
 * (in-app notices, webhook deliveries).
 */
import { automationDeliveries, type StoredAction } from "../../db/schema";
import { ApiError } from "../../errors";
import type { AutomationRow } from "../../auth/access";
import type { ConditionValue } from "../../schemas/automations";
import { atTime, type ServiceContext } from "../context";
import { updateCells } from "../tables/cells";
import { applyComputedColumn } from "../tables/columns";
import { bulkCreateRows, createRow, deleteRows } from "../tables/rows";
import { createDocument } from "../documents/create";
import { BudgetExceeded, type Budget } from "./budget";
import { CascadeBudgetExceeded, reserveCascade } from "./cascade";
import { conditionHolds, hasTests } from "./conditions";
import { enqueueAll } from "./messages";
import type { RunRow } from "./serialize";
import type { ActionNotice } from "./notify";

/** A row as a run sees it: the triggering row (possibly deleted since) or one its conditions selected. */
export type RowWithCells = {
  id: string;
  tableId: string;
  projectId: string;
  isDeleted: boolean;
  cells: Record<string, unknown>;
};

/** A run while its actions execute. */
export interface ActiveRun {
  /** The system acting for the owner at the run's depth, over the budgeted D1; its outbox collects the writes' events. */
  ctx: ServiceContext;
  automation: AutomationRow;
  run: RunRow;
  budget: Budget;
  cascadeId: string;
  triggerRow: RowWithCells | null;
  selected: RowWithCells[] | null;
  deliveryIds: string[];
  /** The notify actions' notices, written to the outbox with the run's record (runner.ts recordRun). */
  notices: ActionNotice[];
}

export interface ActionOutcome {
  affectedRows: number;
  skipped?: boolean;
}

type Spec = Record<string, unknown> & { kind: string };

/** What an action's `condition` leaves: the rows it may touch, and whether it runs at all (row-less actions). */
interface Scope {
  targets: RowWithCells[];
  gateOpen: boolean;
}

const SKIPPED: ActionOutcome = { affectedRows: 0, skipped: true };

/** Charges `n` writes to the run's cascade (cascade.ts). */
function reserveWrites(ar: ActiveRun, n: number) {
  return reserveCascade(ar.ctx.env, ar.cascadeId, ar.automation.projectId, "writes", n);
}

/**
 * The run's context on the shard database holding `id` (the table, column or project an action names): the
 * automation's own shard for anything of its organization, so its writes land beside it; budgeted all the same.
 */
const on = (ar: ActiveRun, id: string) => ar.ctx.on(id);

/** Rows a row-scoped action works on: those `conditions` selected, else the triggering row; narrowed by its condition. */
function scopeOf(ar: ActiveRun, action: StoredAction): Scope {
  const condition = action.condition as ConditionValue | undefined;
  const gated = hasTests(condition);
  const base = ar.selected ?? (ar.triggerRow && !ar.triggerRow.isDeleted ? [ar.triggerRow] : []);
  const contextRows = ar.selected ?? (ar.triggerRow ? [ar.triggerRow] : []);
  return {
    targets: gated ? base.filter((r) => conditionHolds(condition, r.cells)) : base,
    gateOpen: !gated || contextRows.some((r) => conditionHolds(condition, r.cells)),
  };
}

async function rowCreate(ar: ActiveRun, spec: Spec, scope: Scope): Promise<ActionOutcome> {
  if (!scope.gateOpen) return SKIPPED;
  ar.budget.reserveRows(1);
  await reserveWrites(ar, 1);
  await createRow(on(ar, String(spec.tableId)), {
    tableId: String(spec.tableId),
    cells: (spec.cells as Record<string, unknown>) ?? {},
    cellsPath: "spec.cells",
  });
  return { affectedRows: 1 };
}

/**
 * How many actions from `from` on can be written as one insert: consecutive `row.create` actions of one table with
 * the same `cells`, each one's condition letting it run (what "create K rows" is). 1 when there is no such group.
 * Written together they are the same rows, events and refusals as one by one, with one table check, one batch and
 * one recalculation instead of K of each (docs/api-guide.md, "A cascade takes its turn").
 */
export function rowCreateGroupSize(ar: ActiveRun, from: number): number {
  const actions = ar.automation.actions;
  const first = actions[from]!.spec as Spec;
  if (first.kind !== "row.create" || !scopeOf(ar, actions[from]!).gateOpen) return 1;
  const cells = JSON.stringify(first.cells ?? {});
  let end = from + 1;
  while (end < actions.length) {
    const spec = actions[end]!.spec as Spec;
    if (
      spec.kind !== "row.create" ||
      spec.tableId !== first.tableId ||
      JSON.stringify(spec.cells ?? {}) !== cells ||
      !scopeOf(ar, actions[end]!).gateOpen
    )
      break;
    end++;
  }
  return end - from;
}

/**
 * The `n` actions rowCreateGroupSize found, as one insert of `n` rows. "one by one" when they must go one at a
 * time instead — the run's `maxAffectedRows` or the cascade's writes leave less than `n` (nothing is reserved
 * then), so each action meets its own limit. A refusal is the one each action would meet (they are alike).
 */
export async function runRowCreateGroup(ar: ActiveRun, from: number, n: number): Promise<ActionOutcome | "one by one"> {
  const spec = ar.automation.actions[from]!.spec as Spec;
  if (ar.budget.affectedRows + n > ar.budget.limits.maxAffectedRows) return "one by one";
  ar.ctx = atTime(ar.ctx, Date.now());
  try {
    await reserveWrites(ar, n);
  } catch (err) {
    if (err instanceof CascadeBudgetExceeded) return "one by one";
    throw err;
  }
  ar.budget.reserveRows(n);
  const cells = (spec.cells as Record<string, unknown>) ?? {};
  await bulkCreateRows(on(ar, String(spec.tableId)), {
    tableId: String(spec.tableId),
    rows: Array.from({ length: n }, () => cells),
    cellsPath: "spec.cells",
  });
  return { affectedRows: n };
}

/** row.update and row.delete: the target rows, table by table, through the tables' verbs. */
async function rowWrite(ar: ActiveRun, spec: Spec, scope: Scope): Promise<ActionOutcome> {
  const targets = spec.tableId ? scope.targets.filter((r) => r.tableId === spec.tableId) : scope.targets;
  if (targets.length === 0) return SKIPPED;
  ar.budget.reserveRows(targets.length);
  await reserveWrites(ar, targets.length);
  const byTable = new Map<string, string[]>();
  for (const r of targets) byTable.set(r.tableId, [...(byTable.get(r.tableId) ?? []), r.id]);
  for (const [tableId, rowIds] of byTable) {
    if (spec.kind === "row.delete") await deleteRows(on(ar, tableId), { tableId, rowIds });
    else await updateCells(on(ar, tableId), { tableId, rowIds, values: (spec.set as Record<string, unknown>) ?? {} });
  }
  return { affectedRows: targets.length };
}

async function formulaApply(ar: ActiveRun, spec: Spec, scope: Scope): Promise<ActionOutcome> {
  if (!scope.gateOpen) return SKIPPED;
  const result = await applyComputedColumn(on(ar, String(spec.columnId)), { columnId: String(spec.columnId) });
  ar.budget.reserveRows(result.updatedRows);
  // The apply's row count is known only afterwards: charged to the cascade then (an exhausted cascade stops here).
  await reserveWrites(ar, result.updatedRows);
  return { affectedRows: result.updatedRows };
}

async function documentCreate(ar: ActiveRun, spec: Spec, scope: Scope): Promise<ActionOutcome> {
  if (!scope.gateOpen) return SKIPPED;
  if (!ar.automation.behavior.allowDocumentWrites) throw new BudgetExceeded("allowDocumentWrites", 0, 1);
  await reserveWrites(ar, 1);
  const projectId = (spec.projectId as string | undefined) ?? ar.automation.projectId;
  await createDocument(on(ar, projectId), {
    projectId,
    name: String(spec.name),
    type: (spec.type as "FOLDER" | "DOCUMENT" | undefined) ?? "DOCUMENT",
    parentId: (spec.parentId as string | null | undefined) ?? null,
  });
  return { affectedRows: 0 };
}

/**
 * An in-app notice to the automation's owner: kept with the run and written to the outbox in the batch that records
 * the run, then delivered to the directory, where GET /notification/all reads it (docs/scaling.md "Notifications:
 * an outbox"). Its id derives from the run and the action, so a run executed again cannot notify twice.
 */
async function notify(ar: ActiveRun, spec: Spec, scope: Scope, action: StoredAction): Promise<ActionOutcome> {
  if (!scope.gateOpen) return SKIPPED;
  await reserveWrites(ar, 1);
  ar.notices.push({ actionId: action.id, title: String(spec.title), body: String(spec.body ?? "") });
  return { affectedRows: 0 };
}

/** The body a webhook action sends when its spec names none: the run, its trigger and the triggering row or document. */
function defaultPayload(ar: ActiveRun) {
  const trigger = ar.run.trigger;
  return {
    type: "automation.run",
    timestamp: new Date(ar.ctx.now).toISOString(),
    data: {
      automationId: ar.automation.id,
      runId: ar.run.id,
      trigger,
      ...(ar.triggerRow
        ? { row: { _id: ar.triggerRow.id, tableId: ar.triggerRow.tableId, cells: ar.triggerRow.cells } }
        : {}),
      ...(typeof trigger.documentId === "string" ? { document: { _id: trigger.documentId } } : {}),
    },
  };
}

/** A delivery recorded and queued (webhooks.ts sends it). */
async function webhook(ar: ActiveRun, spec: Spec, scope: Scope, action: StoredAction): Promise<ActionOutcome> {
  if (!scope.gateOpen) return SKIPPED;
  ar.budget.reserveExternal(1);
  await reserveCascade(ar.ctx.env, ar.cascadeId, ar.automation.projectId, "deliveries", 1);
  const id = ar.ctx.ids.beside(ar.automation.id);
  const t = ar.ctx.now;
  await ar.ctx.db.insert(automationDeliveries).values({
    id,
    automationId: ar.automation.id,
    runId: ar.run.id,
    actionId: action.id,
    url: String(spec.url),
    method: String(spec.method ?? "POST"),
    headers: (spec.headers as Record<string, string>) ?? {},
    body: JSON.stringify(spec.body !== undefined ? spec.body : defaultPayload(ar)),
    status: "pending",
    attempts: [],
    retryIndex: 0,
    nextAttemptAt: t,
    createdAt: t,
    updatedAt: t,
  });
  ar.deliveryIds.push(id);
  await enqueueAll(ar.ctx.env.AUTOMATION_QUEUE, [{ kind: "delivery", deliveryId: id }]);
  return { affectedRows: 0 };
}

const handlers: Record<
  string,
  (ar: ActiveRun, spec: Spec, scope: Scope, action: StoredAction) => Promise<ActionOutcome>
> = {
  "row.create": rowCreate,
  "row.update": rowWrite,
  "row.delete": rowWrite,
  "formula.apply": formulaApply,
  "document.create": documentCreate,
  notify,
  webhook,
};

/** Executes one action (its clock is the context's: each action's writes carry the time it started). */
export async function runAction(ar: ActiveRun, action: StoredAction): Promise<ActionOutcome> {
  const spec = action.spec as Spec;
  const handler = Object.hasOwn(handlers, spec.kind) ? handlers[spec.kind] : undefined;
  if (!handler) throw new ApiError("UnprocessableEntityError", `Unknown action kind ${spec.kind}`);
  ar.ctx = atTime(ar.ctx, Date.now());
  return handler(ar, spec, scopeOf(ar, action), action);
}
