/**
 * A table computation's plan — which formula columns to compute, in dependency order, what to read, the
 * relation lookups and their linked rows — and its evaluation over pages of rows within the per-cell and per-run
 * budgets (docs/api-guide.md, "Resource bounds"), in slices that yield to the event loop.
 */
import { unprocessable } from "../../errors";
import type { Expr } from "./expression";
import { compileFormula, evaluateCellText, LIMIT_TEXT, type CompiledFormula } from "./evaluate";
import { formulaLimits } from "./limits";
import { columnMetas, computeOrder, referencedColumns, type TableColumn } from "./graph";
import type { CellUpsert } from "./queries";
import { readLinkedRows } from "./store";
import type { RowPage } from "./rowPages";
import { cellToValue, Errors, type ColumnMeta, type FormulaValue } from "./values";
import {
  linkedRows,
  lookupSlotId,
  lookupValue,
  relationLookups,
  relationTest,
  withLookupReads,
  type LinkedColumns,
  type LinkedRelation,
  type RelationLookup,
} from "./lookups";
import type { OneManyOptions } from "../../schemas/tables";
import type { ServiceContext } from "../context";

export interface ComputationPlan {
  /** Formula columns to compute, in dependency order. */
  order: string[];
  compiled: Map<string, CompiledFormula>;
  metas: Map<string, ColumnMeta>;
  /** Every column whose cells are read: inputs of the targets, and the targets' own (old) values if asked. */
  readColumns: string[];
  /** The relation lookups the targets read, by the id the evaluator reads them under (lookupSlotId). */
  lookups: Map<string, RelationLookup>;
  /** Filled by readLinkedData: each relation's options and linked rows. */
  relations: Map<string, LinkedRelation>;
}

export function planComputation(
  columns: readonly TableColumn[],
  trees: ReadonlyMap<string, Expr>,
  targets: ReadonlySet<string>,
  opts: { readTargets: boolean },
): ComputationPlan {
  const { order, cyclic } = computeOrder(trees);
  const metas = columnMetas(columns, trees);
  const compiled = new Map<string, CompiledFormula>();
  const read = new Set<string>();
  const isRelation = relationTest(columns);
  const lookups = new Map<string, RelationLookup>();
  const computeOrderOfTargets = [...order.filter((id) => targets.has(id)), ...cyclic.filter((id) => targets.has(id))];
  for (const id of computeOrderOfTargets) {
    const expr = trees.get(id)!;
    // A cycle can only come from corrupt data (apply refuses one); its cells read as #REF!.
    compiled.set(id, cyclic.includes(id) ? () => Errors.ref : compileFormula(withLookupReads(expr, isRelation)));
    if (opts.readTargets) read.add(id);
    const inputs = referencedColumns(expr);
    for (const l of relationLookups(expr, isRelation)) {
      lookups.set(lookupSlotId(l), l);
      // The relation's filter compares linked cells with this row's cells: those are inputs too.
      const options = columns.find((c) => c.id === l.relationId)?.data.oneMany as OneManyOptions | undefined;
      for (const item of options?.filter ?? []) if (item.sourceColumnId) inputs.add(item.sourceColumnId);
    }
    // A target read by a later target comes from this run's evaluation, not from D1.
    for (const ref of inputs) if (metas.has(ref) && (opts.readTargets || !targets.has(ref))) read.add(ref);
  }
  return { order: computeOrderOfTargets, compiled, metas, readColumns: [...read], lookups, relations: new Map() };
}

/** Reads the linked rows the plan's lookups need (one query per linked table, one round trip), into `plan.relations`. */
export async function readLinkedData(
  ctx: ServiceContext,
  input: { plan: ComputationPlan; columns: readonly TableColumn[]; linked: LinkedColumns },
): Promise<void> {
  const { plan, columns, linked } = input;
  if (plan.lookups.size === 0) return;
  const tableOf = new Map<string, { tableId: string; options: OneManyOptions }>();
  const wanted = new Map<string, Set<string>>();
  for (const l of plan.lookups.values()) {
    const options = columns.find((c) => c.id === l.relationId)?.data.oneMany as OneManyOptions | undefined;
    if (!options || !linked.has(l.relationId)) continue;
    tableOf.set(l.relationId, { tableId: options.tableId, options });
    const set = wanted.get(options.tableId) ?? new Set<string>();
    set.add(l.columnId);
    for (const item of options.filter) set.add(item.targetColumnId);
    wanted.set(options.tableId, set);
  }
  const rows = await readLinkedRows(ctx, new Map([...wanted].map(([t, set]) => [t, [...set]])));
  const shared = new Map<string, ReturnType<typeof linkedRows>>();
  for (const [relationId, { tableId, options }] of tableOf) {
    const read = rows.get(tableId);
    if (!read) continue;
    let linkedTable = shared.get(tableId);
    if (!linkedTable) shared.set(tableId, (linkedTable = linkedRows(read.ids, read.values, linked.get(relationId)!)));
    plan.relations.set(relationId, { options, rows: linkedTable });
  }
}

/**
 * The budget of one table computation (docs/api-guide.md, "Resource bounds"): evaluation time (where the clock
 * advances), work units and bytes of computed values. An apply past it is refused (422, nothing persisted); a
 * row write's recalculation stores #LIMIT! in the cells it could not compute.
 */
export interface RunBudget {
  ms: number;
  units: number;
  bytes: number;
  onSpent: "refuse" | "limit";
  spent: boolean;
}

export function runBudget(onSpent: RunBudget["onSpent"]): RunBudget {
  return {
    ms: formulaLimits.runMs,
    units: formulaLimits.runUnits,
    bytes: formulaLimits.runBytes,
    onSpent,
    spent: false,
  };
}

function spend(run: RunBudget, rows: number): void {
  // The clock counts only once a real share of the work was done (see the cell budget: a wall clock also runs
  // while the process waits), so a cheap formula over a big table is never refused for the machine's load.
  const clockSpent = run.ms <= 0 && formulaLimits.runUnits - run.units > formulaLimits.runUnits / 10;
  if (!clockSpent && run.units > 0 && run.bytes >= 0) return;
  run.spent = true;
  if (run.onSpent === "refuse") {
    const why =
      run.bytes < 0
        ? `${Math.round(formulaLimits.runBytes / 1024 / 1024)} MiB of values`
        : `${formulaLimits.runMs / 1000} s of evaluation`;
    throw unprocessable(
      `Computing this formula for every row of the table takes more than ${why} (stopped after ${rows} rows); nothing was changed`,
      [{ path: "expression", message: `past the table computation budget of ${why}` }],
    );
  }
}

/** Lets other requests of the isolate run between slices of a long computation. */
const yieldToEventLoop = () => new Promise<void>((resolve) => setTimeout(resolve, 0));

/**
 * Evaluates the plan's formulas for each row of the page, in order. With `compare`, only cells whose value
 * differs from the page's (old) text are queued and the number of rows with a change is returned; without,
 * every result is queued (the write statements skip unchanged cells themselves). Each result is stored in
 * the page and read back through its cell form, so a formula reading another formula sees exactly what a
 * later run would read from D1. Cells are addressed by slot (index in the page's columns, then the targets).
 *
 * Each cell is evaluated within its own budget (#LIMIT! past it) and charged to the run's; the work is done in
 * slices of about `formulaLimits.sliceMs` with a yield to the event loop between them.
 */
// eslint-disable-next-line max-lines-per-function -- the evaluation loop with its per-cell budget and paging, kept in one place
export async function evaluateRows(
  plan: ComputationPlan,
  page: RowPage,
  out: CellUpsert[],
  opts: { compare: boolean; run: RunBudget; rowsBefore?: number },
): Promise<number> {
  const run = opts.run;
  const slotIds = [
    ...page.columnIds,
    ...plan.order.filter((id) => !page.columnIds.includes(id)),
    ...plan.lookups.keys(),
  ];
  const slotOf = new Map(slotIds.map((id, k) => [id, k]));
  const metaBySlot = slotIds.map((id) => plan.metas.get(id));
  const lookupBySlot = slotIds.map((id) => plan.lookups.get(id));
  let rowId = "";
  const rawOf = (columnId: string): unknown => {
    const text = texts[slotOf.get(columnId) ?? -1];
    return text === null || text === undefined ? null : safeParse(text);
  };
  const targets = plan.order.map((id) => ({ id, slot: slotOf.get(id)!, compiled: plan.compiled.get(id)! }));
  const UNSET = Symbol("unset");
  const decoded: Array<FormulaValue | typeof UNSET> = new Array(slotIds.length).fill(UNSET);
  let texts: Array<string | null> = [];
  const get = (columnId: string): FormulaValue => {
    const k = slotOf.get(columnId);
    if (k === undefined) return Errors.ref;
    const hit = decoded[k]!;
    if (hit !== UNSET) return hit;
    const lookup = lookupBySlot[k];
    if (lookup) {
      const relation = plan.relations.get(lookup.relationId);
      const list = relation ? lookupValue(relation, lookup.columnId, rowId, rawOf) : Errors.ref;
      decoded[k] = list;
      return list;
    }
    const meta = metaBySlot[k];
    const text = texts[k];
    const value = !meta ? Errors.ref : text === null || text === undefined ? null : cellToValue(safeParse(text), meta);
    decoded[k] = value;
    return value;
  };

  let changedRows = 0;
  let sliceStart = performance.now();
  let sliceUnits = 0;
  // One clock reading per row: the end of a row is the start of the next (and of its first cell).
  let rowStart = sliceStart;
  for (let i = 0; i < page.rowIds.length; i++) {
    texts = page.texts[i]!;
    rowId = page.rowIds[i]!;
    decoded.fill(UNSET);
    let changed = false;
    for (let t = 0; t < targets.length; t++) {
      const target = targets[t]!;
      let next: string | null;
      if (run.spent) next = LIMIT_TEXT;
      else {
        const cell = evaluateCellText(target.compiled, get, run.units, t === 0 ? rowStart : undefined);
        next = cell.text;
        run.units -= cell.units;
        sliceUnits += cell.units;
      }
      run.bytes -= next === null ? 0 : next.length;
      if (!opts.compare) out.push({ rowId: page.rowIds[i]!, columnId: target.id, data: next });
      else {
        const before = texts[target.slot] ?? null;
        if (before !== next && canonical(before) !== next) {
          changed = true;
          out.push({ rowId: page.rowIds[i]!, columnId: target.id, data: next });
        }
      }
      texts[target.slot] = next;
      decoded[target.slot] = UNSET;
    }
    if (changed) changedRows += 1;
    const now = performance.now();
    run.ms -= now - rowStart;
    rowStart = now;
    if (!run.spent) spend(run, (opts.rowsBefore ?? 0) + i + 1);
    if (now - sliceStart > formulaLimits.sliceMs || sliceUnits > formulaLimits.sliceUnits) {
      await yieldToEventLoop();
      // The wait for the event loop is no row's time, nor its first cell's.
      sliceStart = performance.now();
      rowStart = sliceStart;
      sliceUnits = 0;
    }
  }
  return changedRows;
}

export function safeParse(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

/** The stored text in the same spelling JSON.stringify produces, so equal values compare equal. */
function canonical(text: string | null | undefined): string | null {
  if (text === null || text === undefined) return null;
  try {
    const v = JSON.parse(text);
    return v === null ? null : JSON.stringify(v);
  } catch {
    return text;
  }
}
