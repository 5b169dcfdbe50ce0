/**
 * The per-cell budget of formula evaluation (docs/api-guide.md, "Resource bounds"): work and time counted while a
 * cell is evaluated, and the cell stored as `{ "error": "#LIMIT!" }` past it.
 */
import { formulaLimits } from "./limits";
import { valueToCell, type FormulaValue } from "./values";
import type { CompiledFormula, ValueSource } from "./evaluate";

/**
 * Thrown through the evaluator when a cell's budget is spent, so no lazy function (IFERROR) can catch it;
 * `evaluateCell` turns it into #LIMIT!.
 */
export class BudgetSpent {}
export const SPENT = new BudgetSpent();

interface Budget {
  /** Work left (evaluator steps, array elements, estimated library cost). */
  units: number;
  /** Work the cell started with. */
  start: number;
  /** performance.now() past which a cell doing real work stops, and past which any cell stops. */
  deadline: number;
  hardDeadline: number;
  /** Stopped by the clock alone, having done little counted work (see evaluateCellText). */
  clockAlone: boolean;
}
let budget: Budget | null = null;

/**
 * Counts `units` of work against the current cell's budget, and with `clock` also looks at the time. The count
 * of work is what bounds a cell everywhere (Workers freeze the clock while code runs) and is deterministic; the
 * clock stops sooner a cell whose calls cost more than their count says. A wall clock also runs while the
 * process is descheduled or collecting garbage, so a cell that did little work is only stopped by the clock at
 * four times the budget, and is then evaluated once more (evaluateCellText): a cheap formula's value does not
 * depend on the machine's load.
 */
export function charge(units: number, clock: boolean): void {
  const b = budget;
  if (!b) return;
  b.units -= units;
  if (b.units < 0) throw SPENT;
  if (clock) {
    const now = performance.now();
    if (now <= b.deadline) return;
    if (b.start - b.units > b.start / 20) throw SPENT;
    if (now > b.hardDeadline) {
      b.clockAlone = true;
      throw SPENT;
    }
  }
}

/** Elements of a value (1 for a scalar), and #LIMIT! past the array cap. */
export function elements(v: FormulaValue): number {
  if (!Array.isArray(v)) return 1;
  if (v.length > formulaLimits.arrayElements) throw SPENT;
  return v.length;
}

export const LIMIT_CELL = Object.freeze({ error: "#LIMIT!" });
export const LIMIT_TEXT = JSON.stringify(LIMIT_CELL);

export interface CellEvaluation {
  /** The stored JSON text of the cell, or null for blank. */
  text: string | null;
  /** Work the cell used (for the run's budget). */
  units: number;
}

/**
 * Evaluates one cell within the per-cell budget (docs/api-guide.md, "Resource bounds"): past its time or work,
 * or with a stored value past its size, the cell is `{ "error": "#LIMIT!" }`. `maxUnits` lowers the work budget
 * (a run's remaining budget); `startedAt` is the caller's performance.now() taken just before, if it has one.
 *
 * A cell stopped by the clock alone (past four times its time while its counted work stayed small) is evaluated
 * once more before it is stored as #LIMIT!: the wall clock also runs while the process is paused (garbage
 * collection, other processes on a loaded machine), and such a pause does not come back at the same place, while a
 * cell that really is slow is slow again. So a cheap formula's value does not depend on the machine's load.
 */
export function evaluateCellText(
  f: CompiledFormula,
  get: ValueSource,
  maxUnits = formulaLimits.cellUnits,
  startedAt?: number,
): CellEvaluation {
  const first = attempt(f, get, maxUnits, startedAt ?? performance.now());
  if (!first.clockAlone) return { text: first.text, units: first.units };
  const again = attempt(f, get, maxUnits, performance.now());
  return { text: again.text, units: first.units + again.units };
}

function attempt(
  f: CompiledFormula,
  get: ValueSource,
  maxUnits: number,
  now: number,
): CellEvaluation & { clockAlone: boolean } {
  const units = Math.min(maxUnits, formulaLimits.cellUnits);
  const outer = budget;
  const mine: Budget = {
    units,
    start: units,
    deadline: now + formulaLimits.cellMs,
    hardDeadline: now + 4 * formulaLimits.cellMs,
    clockAlone: false,
  };
  budget = mine;
  try {
    const value = f(get);
    elements(value);
    const cell = valueToCell(value);
    const text = cell === null ? null : JSON.stringify(cell);
    if (text !== null && text.length > formulaLimits.cellBytes)
      return { text: LIMIT_TEXT, units: units - mine.units, clockAlone: false };
    return { text, units: units - mine.units, clockAlone: false };
  } catch (err) {
    if (err === SPENT) return { text: LIMIT_TEXT, units: units - mine.units, clockAlone: mine.clockAlone };
    throw err;
  } finally {
    budget = outer;
  }
}

/** One cell's stored value (parsed), within the per-cell budget. */
export function evaluateCell(f: CompiledFormula, get: ValueSource): unknown {
  const { text } = evaluateCellText(f, get);
  return text === null ? null : JSON.parse(text);
}
