/**
 * A run's budgets (docs/api-guide.md › Automations, published portals, collaborative editing): every D1 round trip
 * of an action counts against `operationBudget` (the statement is refused before it runs), rows are reserved
 * against `maxAffectedRows` before they are written, webhook deliveries against `externalWriteBudget`, and the
 * clock against `maxDurationMs`. The first excess stops the run.
 */
import type { StoredBehavior } from "../../db/schema";
import { countingD1 } from "../../db/instrument";
import { ApiError } from "../../errors";
import { CascadeBudgetExceeded } from "./cascade";

export class BudgetExceeded extends Error {
  constructor(
    readonly budget: keyof StoredBehavior,
    readonly limit: number,
    readonly used: number,
  ) {
    super(`Budget ${budget} exceeded: ${used} > ${limit}`);
  }
  toJSON() {
    return { code: "BudgetExceeded", message: this.message, budget: this.budget, limit: this.limit, used: this.used };
  }
}

/** The budgets of a run whose automation is gone (nothing runs; the record still names them). */
export const DEFAULT_BEHAVIOR: StoredBehavior = {
  maxDurationMs: 30_000,
  operationBudget: 1000,
  maxAffectedRows: 1000,
  externalWriteBudget: 10,
  allowDocumentWrites: false,
};

export class Budget {
  operations = 0;
  affectedRows = 0;
  externalWrites = 0;
  constructor(
    readonly limits: StoredBehavior,
    readonly startedAt: number,
  ) {}

  checkTime() {
    const used = Date.now() - this.startedAt;
    if (used > this.limits.maxDurationMs) throw new BudgetExceeded("maxDurationMs", this.limits.maxDurationMs, used);
  }
  operation() {
    this.checkTime();
    if (this.operations + 1 > this.limits.operationBudget)
      throw new BudgetExceeded("operationBudget", this.limits.operationBudget, this.operations + 1);
    this.operations += 1;
  }
  reserveRows(n: number) {
    if (this.affectedRows + n > this.limits.maxAffectedRows)
      throw new BudgetExceeded("maxAffectedRows", this.limits.maxAffectedRows, this.affectedRows + n);
    this.affectedRows += n;
  }
  reserveExternal(n: number) {
    if (this.externalWrites + n > this.limits.externalWriteBudget)
      throw new BudgetExceeded("externalWriteBudget", this.limits.externalWriteBudget, this.externalWrites + n);
    this.externalWrites += n;
  }
}

/** A D1 binding whose every round trip is charged to the budget first (refused when over). */
export function budgetedD1(d1: D1Database, budget: Budget): D1Database {
  return countingD1(d1, { count: 0, charge: () => budget.operation() });
}

/** `promise`, or BudgetExceeded (maxDurationMs) once the run's time is up, whichever comes first. */
export function withDeadline<T>(promise: Promise<T>, budget: Budget): Promise<T> {
  const remaining = budget.limits.maxDurationMs - (Date.now() - budget.startedAt);
  let timer: ReturnType<typeof setTimeout> | null = null;
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () => reject(new BudgetExceeded("maxDurationMs", budget.limits.maxDurationMs, Date.now() - budget.startedAt)),
      Math.max(0, remaining),
    );
  });
  return Promise.race([promise, deadline]).finally(() => {
    if (timer !== null) clearTimeout(timer);
  });
}

/** What a run or action record says about a failure (a service error's code, message and details; else an opaque one). */
export function errorInfo(err: unknown): Record<string, unknown> {
  if (err instanceof BudgetExceeded || err instanceof CascadeBudgetExceeded) return err.toJSON();
  if (err instanceof ApiError)
    return { code: err.code, message: err.message, ...(err.details ? { details: err.details } : {}) };
  return { code: "InternalError", message: "The action failed unexpectedly" };
}
