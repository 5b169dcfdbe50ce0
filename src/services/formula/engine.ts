/**
 * Formula computation over a table's rows. These functions do no locking of their own: the per-table Durable
 * Object (src/durable/TableFormulaCoordinator.ts) calls them one at a time, so an apply and row writes to one
 * table never interleave. Each run reads what it needs, evaluates in memory, and writes every changed cell
 * (and, for an apply, the column's new formula) in one atomic D1 batch: a failure persists nothing.
 */
import { conflict, notFound } from "../../errors";
import type { DescriptionItem, Expr, ParsedExpression } from "./expression";
import { compileFormula, type CompiledFormula } from "./evaluate";
import { columnMetas, computeOrder, formulaTrees, referencedColumns, withDependents, type TableColumn } from "./graph";
import { cellUpsertStatements, d1Of, loadTable, persistFormulaStatement, readRowPage, readRows, type CellUpsert, type DbLike, type RowCells, type TableInfo } from "./store";
import { validateFormula } from "./validate";
import { cellToValue, Errors, valueToCell, type ColumnMeta, type FormulaValue } from "./values";

/** Rows read and evaluated per keyset page. */
export const ROW_PAGE_SIZE = 5_000;

export interface ApplyFormulaInput {
  tableId: string;
  columnId: string;
  expression: ParsedExpression;
  description: DescriptionItem[];
}

export interface ApplyFormulaResult {
  /** Rows where any recomputed cell (the column's or a dependent formula's) changed. */
  updatedRows: number;
}

/** A cell value to store before recomputing (a row or cell route's write). `data` is the JSON value. */
export interface CellWrite {
  rowId: string;
  columnId: string;
  data: unknown;
}

export interface RecomputeResult {
  updatedRows: number;
  /** Every formula cell of the recomputed live rows after the run: rowId → columnId → value. */
  formulaCells: Record<string, Record<string, unknown>>;
}

/**
 * E3: validates the formula against the table (404 / 409 / 422), makes the column a formula column, and
 * computes it — and every formula column that depends on it — for every live row.
 */
export async function applyFormulaToTable(db: DbLike, input: ApplyFormulaInput): Promise<ApplyFormulaResult> {
  const d1 = d1Of(db);
  const { table, columns } = await loadTable(d1, input.tableId);
  if (!table || table.isDeleted) throw notFound("Table");
  const column = columns.find((c) => c.id === input.columnId);
  if (!column || column.isDeleted) throw notFound("Column");
  if (column.isIdentifier || column.data.type === "identifier") throw conflict("The identifier column cannot become a formula column");
  const expression = validateFormula(input, columns);

  const trees = formulaTrees(columns, { columnId: column.id, expression });
  const targets = new Set(withDependents(column.id, trees));
  const plan = planComputation(columns, trees, targets);

  const writes: CellUpsert[] = [];
  let updatedRows = 0;
  let page = readRowPage(d1, table.id, "", ROW_PAGE_SIZE, plan.readColumns);
  for (;;) {
    const current = await page;
    const last = current.rowIds.at(-1);
    const more = current.rowIds.length === ROW_PAGE_SIZE && last !== undefined;
    // Fetch the next page while this one is evaluated.
    if (more) page = readRowPage(d1, table.id, last, ROW_PAGE_SIZE, plan.readColumns);
    updatedRows += evaluateRows(plan, current.rowIds, current.cells, writes);
    if (!more) break;
  }

  const now = Date.now();
  await d1.batch([
    ...cellUpsertStatements(d1, { tableId: table.id, workspaceId: table.workspaceId, now }, writes),
    persistFormulaStatement(d1, column.id, { ...column.data, type: "formula" }, { expression, description: input.description }, now),
  ]);
  return { updatedRows };
}

/**
 * Recomputes every formula column of the given rows, in dependency order, and writes the changed cells —
 * after storing `writes` (a row or cell route's values) in the same batch. Rows that are deleted or belong
 * to another table are skipped; a write to one is 404, a write to a formula column 409.
 */
export async function recomputeRowFormulas(
  db: DbLike,
  tableId: string,
  rowIds: readonly string[],
  opts: { writes?: readonly CellWrite[] } = {},
): Promise<RecomputeResult> {
  const d1 = d1Of(db);
  const { table, columns } = await loadTable(d1, tableId);
  if (!table || table.isDeleted) throw notFound("Table");
  const writes = opts.writes ?? [];
  const byId = new Map(columns.map((c) => [c.id, c]));
  for (const w of writes) {
    const col = byId.get(w.columnId);
    if (!col || col.isDeleted) throw notFound("Column");
    if (col.data.type === "formula" || col.data.type === "oneMany") throw conflict(`Column "${col.name}" is computed; its cells cannot be written`);
  }

  const trees = formulaTrees(columns);
  const plan = planComputation(columns, trees, new Set(trees.keys()));
  const allRowIds = [...new Set([...rowIds, ...writes.map((w) => w.rowId)])];
  if (allRowIds.length === 0) return { updatedRows: 0, formulaCells: {} };
  const { rowIds: live, cells } = await readRows(d1, table.id, allRowIds, plan.readColumns);
  const liveSet = new Set(live);

  const upserts: CellUpsert[] = [];
  for (const w of writes) {
    if (!liveSet.has(w.rowId)) throw notFound("Row");
    const text = w.data === null || w.data === undefined ? null : JSON.stringify(w.data);
    let row = cells.get(w.rowId);
    if (!row) cells.set(w.rowId, (row = new Map()));
    row.set(w.columnId, text);
    upserts.push({ rowId: w.rowId, columnId: w.columnId, data: text, isIdentifier: byId.get(w.columnId)!.isIdentifier });
  }

  const updatedRows = plan.order.length > 0 ? evaluateRows(plan, live, cells, upserts) : 0;
  if (upserts.length > 0) {
    await d1.batch(cellUpsertStatements(d1, { tableId: table.id, workspaceId: table.workspaceId, now: Date.now() }, upserts));
  }

  const formulaCells: Record<string, Record<string, unknown>> = {};
  for (const rowId of live) {
    const row = cells.get(rowId);
    const out: Record<string, unknown> = {};
    for (const id of plan.order) {
      const text = row?.get(id);
      out[id] = text === null || text === undefined ? null : JSON.parse(text);
    }
    formulaCells[rowId] = out;
  }
  return { updatedRows, formulaCells };
}

interface ComputationPlan {
  /** Formula columns to compute, in dependency order. */
  order: string[];
  compiled: Map<string, CompiledFormula>;
  metas: Map<string, ColumnMeta>;
  /** Every column whose cells are read: inputs of the targets and the targets' own (old) values. */
  readColumns: string[];
}

function planComputation(columns: readonly TableColumn[], trees: ReadonlyMap<string, Expr>, targets: ReadonlySet<string>): ComputationPlan {
  const { order, cyclic } = computeOrder(trees);
  const metas = columnMetas(columns, trees);
  const compiled = new Map<string, CompiledFormula>();
  const read = new Set<string>();
  const computeOrderOfTargets = [...order.filter((id) => targets.has(id)), ...cyclic.filter((id) => targets.has(id))];
  for (const id of computeOrderOfTargets) {
    const expr = trees.get(id)!;
    // A cycle can only come from corrupt data (apply refuses one); its cells read as #REF!.
    compiled.set(id, cyclic.includes(id) ? () => Errors.ref : compileFormula(expr));
    read.add(id);
    for (const ref of referencedColumns(expr)) if (metas.has(ref)) read.add(ref);
  }
  return { order: computeOrderOfTargets, compiled, metas, readColumns: [...read] };
}

/**
 * Evaluates the plan's formulas for each row, in order, and queues every changed cell. Each result is stored
 * and then read back through its cell form, so a formula reading another formula sees exactly what a later
 * run would read from D1 (the same answer whichever run computes it). Returns how many rows changed.
 */
function evaluateRows(plan: ComputationPlan, rowIds: readonly string[], cells: RowCells, out: CellUpsert[]): number {
  let changedRows = 0;
  for (const rowId of rowIds) {
    let raw = cells.get(rowId);
    if (!raw) cells.set(rowId, (raw = new Map()));
    const row = raw;
    const decoded = new Map<string, FormulaValue>();
    const get = (columnId: string): FormulaValue => {
      const hit = decoded.get(columnId);
      if (hit !== undefined || decoded.has(columnId)) return hit as FormulaValue;
      const meta = plan.metas.get(columnId);
      const text = row.get(columnId);
      const value = !meta ? Errors.ref : text === null || text === undefined ? null : cellToValue(safeParse(text), meta);
      decoded.set(columnId, value);
      return value;
    };
    let changed = false;
    for (const id of plan.order) {
      const result = valueToCell(plan.compiled.get(id)!(get));
      const next = result === null ? null : JSON.stringify(result);
      const before = row.get(id);
      if (canonical(before) !== next) {
        changed = true;
        out.push({ rowId, columnId: id, data: next, isIdentifier: false });
      }
      row.set(id, next);
      decoded.delete(id);
    }
    if (changed) changedRows += 1;
  }
  return changedRows;
}

function safeParse(text: string): unknown {
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

export type { TableInfo };
