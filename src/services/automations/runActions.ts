/**
 * A run's actions (docs/api-guide.md › Automations, published portals, collaborative editing), in order, each
 * recorded (status, time, operations, rows) under the run's budgets (budget.ts): consecutive row creations alike are
 * written as one insert, and the run is paced so it and its cascade leave the database time for other tenants.
 * The verdict that ends the run (Verdict) is decided here or at its start (runStart.ts); runner.ts records it.
 */
import type { AutomationRow } from "../../auth/access";
import { rowCreateGroupSize, runAction, runRowCreateGroup, type ActiveRun } from "./actions";
import { BudgetExceeded, errorInfo, withDeadline } from "./budget";
import { CascadeBudgetExceeded } from "./cascade";
import type { ActionRecord } from "./serialize";

export const PACE_MAX_MS = 250;

/** How a run ends: its status and, unless it succeeded, why. */
export interface Verdict {
  status: "succeeded" | "failed" | "skipped";
  error: Record<string, unknown> | null;
}

const SUCCEEDED: Verdict = { status: "succeeded", error: null };

export function notRunRecords(automation: AutomationRow | undefined): ActionRecord[] {
  return (automation?.actions ?? []).map((a) => ({
    id: a.id,
    kind: a.spec.kind,
    status: "notRun",
    startedAt: null,
    finishedAt: null,
    operations: 0,
    affectedRows: 0,
    error: null,
  }));
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
async function runRecordedGroup(
  ar: ActiveRun,
  from: number,
  n: number,
  records: ActionRecord[],
): Promise<Verdict | null | "one by one"> {
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
export async function runActions(ar: ActiveRun, records: ActionRecord[]): Promise<Verdict> {
  const count = ar.automation.actions.length;
  // Once a group did not fit the budgets, the rest go one by one (each meets its own limit).
  let grouping = true;
  for (let i = 0; i < count;) {
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
