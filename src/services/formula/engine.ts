/**
 * Formula computation over a table's rows. These functions do no locking of their own: the per-table Durable
 * Object (src/durable/TableFormulaCoordinator.ts) calls them one at a time, so an apply and row writes to one
 * table never interleave. Each run reads what it needs, evaluates in memory, and writes every changed cell
 * (and, for an apply, the column's new formula) in one atomic D1 batch: a failure persists nothing.
 *
 * An apply does not read the old values of the cells it computes: the write statements only touch cells
 * whose stored text differs (store.ts), and their change counts (or RETURNING row ids, when dependents are
 * recomputed too) give `updatedRows`. That keeps a whole-table apply to one read of its inputs and one write.
 *
 * Every run is bounded (docs/api-guide.md, "Resource bounds"): each cell within its own budget (#LIMIT!), the run
 * within a budget of evaluation, work and bytes (an apply past it is 422 with nothing written; a row write's
 * recalculation stores #LIMIT! in the cells left), evaluated in slices with a yield to the event loop between
 * them so other requests in the isolate are served.
 */
import { changeLogOff, derivedCellLog } from "../changes/log";
import { conflict, notFound, unprocessable } from "../../errors";
import type { DescriptionItem, Expr, ParsedExpression } from "./expression";
import { formulaTrees, withDependents, type TableColumn } from "./graph";
import {
  cellWriteStatements,
  columnsNamingStatement,
  formulaCellsStatement,
  persistFormulaStatement,
  type CellUpsert,
} from "./queries";
import { loadTable } from "./store";
import { asStatements } from "../changes/recordLog";
import { formulaAppliedEntry } from "../tables/changeLog";
import { readRowPage, readRows } from "./rowPages";
import { d1Of } from "../../db/d1";
import type { IdIssuer, ServiceContext } from "../context";
import { validateFormula } from "./validate";
import { lookupDependentColumns, relationLookups, relationTest } from "./lookups";
import {
  evaluateRows,
  planComputation,
  readLinkedData,
  runBudget,
  safeParse,
  type ComputationPlan,
  type RunBudget,
} from "./plan";
import type { OneManyOptions } from "../../schemas/tables";

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
  /** Tables whose lookups read this one: the caller recomputes them (recomputeLookupColumns) before answering. */
  dependentTables?: string[];
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
  /** With `returnCells`: the stored formula Cell records of those rows after the run (blank cells never created are absent). */
  formulaCellRecords?: StoredCell[];
  /** As ApplyFormulaResult's. */
  dependentTables?: string[];
}

/** A stored cell as D1 holds it after a run (the record a row route answers with). */
export interface StoredCell {
  id: string;
  tableId: string;
  rowId: string;
  columnId: string;
  workspaceId: string;
  originId: string;
  isIdentifier: boolean;
  data: unknown;
  createdAt: number;
  updatedAt: number;
  isDeleted: boolean;
}

interface StoredCellRaw {
  id: string;
  table_id: string;
  row_id: string;
  column_id: string;
  workspace_id: string;
  origin_id: string;
  is_identifier: number;
  data: string | null;
  created_at: number;
  updated_at: number;
  is_deleted: number;
}

function storedCell(r: StoredCellRaw): StoredCell {
  return {
    id: r.id,
    tableId: r.table_id,
    rowId: r.row_id,
    columnId: r.column_id,
    workspaceId: r.workspace_id,
    originId: r.origin_id,
    isIdentifier: !!r.is_identifier,
    data: r.data === null ? null : safeParse(r.data),
    createdAt: r.created_at,
    updatedAt: r.updated_at,
    isDeleted: !!r.is_deleted,
  };
}

/**
 * E3: validates the formula against the table (404 / 409 / 422), makes the column a formula column, and
 * computes it — and every formula column that depends on it — for every live row.
 */
export async function applyFormulaToTable(ctx: ServiceContext, input: ApplyFormulaInput): Promise<ApplyFormulaResult> {
  const d1 = d1Of(ctx.db);
  const { table, columns, linked, dependentTables } = await loadTable(ctx, input.tableId, { busy: true });
  if (!table || table.isDeleted) throw notFound("Table");
  const column = columns.find((c) => c.id === input.columnId);
  if (!column || column.isDeleted) throw notFound("Column");
  if (column.isIdentifier || column.data.type === "identifier")
    throw conflict("The identifier column cannot become a formula column");
  const expression = validateFormula(input, columns, linked);

  const trees = formulaTrees(columns, { columnId: column.id, expression });
  await assertNotLookedUpDeeper(d1, { columns, trees, dependentTables });
  const targets = new Set(withDependents(column.id, trees));
  const plan = planComputation(columns, trees, targets, { readTargets: false });
  await readLinkedData(ctx, { plan, columns, linked });

  const data = { ...column.data, type: "formula" };
  const formula = { expression, description: input.description };
  // Past the run's budget the apply is refused (422) before anything is written.
  const writes = await evaluateAllRows(ctx, table.id, plan, runBudget("refuse"));
  // A text, URL or email column becoming a formula: its cell writes still reach the search index's trigger
  // (migrations/shard/0000 and 0005), whose own writes D1 counts in `changes`, so the rows are counted as returned.
  const searchIndexed = ["text", "url", "email"].includes(column.data.type);
  const updatedRows = await writeAllRows(
    d1,
    { table, plan, writes, now: ctx.now, ids: ctx.ids, logOff: changeLogOff(ctx.env), countReturned: searchIndexed },
    [
      // The column's change-log entry (column.updated: its options and formula, when they change), before the write.
      ...asStatements(d1, formulaAppliedEntry(ctx, { table, columnId: column.id, data, formula })),
      persistFormulaStatement(d1, column.id, data, formula, ctx.now),
    ],
  );
  return { updatedRows, dependentTables };
}

/** Every live row of the table evaluated for the plan, page by page; the cells to write. */
async function evaluateAllRows(
  ctx: ServiceContext,
  tableId: string,
  plan: ComputationPlan,
  run: RunBudget,
): Promise<CellUpsert[]> {
  const writes: CellUpsert[] = [];
  let rowsBefore = 0;
  let page = readRowPage(ctx, { tableId, afterId: "", limit: ROW_PAGE_SIZE, columnIds: plan.readColumns });
  for (;;) {
    const current = await page;
    const last = current.rowIds.at(-1);
    const more = current.rowIds.length === ROW_PAGE_SIZE && last !== undefined;
    // Fetch the next page while this one is evaluated.
    if (more) page = readRowPage(ctx, { tableId, afterId: last, limit: ROW_PAGE_SIZE, columnIds: plan.readColumns });
    await evaluateRows(plan, current, writes, { compare: false, run, rowsBefore });
    rowsBefore += current.rowIds.length;
    if (!more) break;
  }
  return writes;
}

/**
 * Writes a whole-table run's cells (only those that differ) with `extra` statements in one batch; the rows changed.
 * One column's run counts its statements' `changes`; several columns (or `countReturned`) count the distinct rows returned.
 */
async function writeAllRows(
  d1: D1Database,
  run: {
    table: { id: string; workspaceId: string };
    plan: ComputationPlan;
    writes: CellUpsert[];
    now: number;
    ids: IdIssuer;
    /** The change log is off (changeLogOff: the changes bench only). */
    logOff: boolean;
    countReturned?: boolean;
  },
  extra: D1PreparedStatement[],
): Promise<number> {
  const { table, plan, writes } = run;
  const withDependentsToo = plan.order.length > 1 || run.countReturned === true;
  const cellStatements = cellWriteStatements(
    d1,
    { tableId: table.id, workspaceId: table.workspaceId, now: run.now, ids: run.ids, returning: withDependentsToo },
    writes,
  );
  if (cellStatements.length + extra.length === 0) return 0;
  const log = derivedCellLog(
    d1,
    { tableId: table.id, workspaceId: table.workspaceId, now: run.now, off: run.logOff },
    writes,
  );
  const results = await d1.batch<{ row_id: string }>([...log, ...cellStatements, ...extra]);
  const cellResults = results.slice(log.length, log.length + cellStatements.length);
  return withDependentsToo
    ? new Set(cellResults.flatMap((r) => r.results.map((x) => x.row_id))).size
    : cellResults.reduce((sum, r) => sum + (r.meta.changes ?? 0), 0);
}

/**
 * After a change to a table another table looks into (`fromTableId`; every linked table when absent): recomputes
 * this table's formula columns that use a relation lookup into it, and their dependents, for every row. Never
 * refused: cells past the run's budget store #LIMIT!. Lookups are one level deep, so this changes nothing
 * another table looks up.
 */
export async function recomputeLookupColumns(
  ctx: ServiceContext,
  input: { tableId: string; fromTableId?: string; relationId?: string },
): Promise<ApplyFormulaResult> {
  const { tableId, ...opts } = input;
  const d1 = d1Of(ctx.db);
  const { table, columns, linked } = await loadTable(ctx, tableId);
  if (!table || table.isDeleted) return { updatedRows: 0 };
  const trees = formulaTrees(columns);
  const isRelation = relationTest(columns);
  const relationTable = (relationId: string) =>
    (columns.find((c) => c.id === relationId)?.data.oneMany as OneManyOptions | undefined)?.tableId;
  const targets = new Set<string>();
  for (const [id, expr] of trees) {
    const uses = relationLookups(expr, isRelation).some(
      (l) =>
        (opts.relationId === undefined || l.relationId === opts.relationId) &&
        (opts.fromTableId === undefined || relationTable(l.relationId) === opts.fromTableId),
    );
    if (uses) for (const t of withDependents(id, trees)) targets.add(t);
  }
  if (targets.size === 0) return { updatedRows: 0 };
  const plan = planComputation(columns, trees, targets, { readTargets: false });
  await readLinkedData(ctx, { plan, columns, linked });
  const writes = await evaluateAllRows(ctx, table.id, plan, runBudget("limit"));
  return {
    updatedRows: await writeAllRows(
      d1,
      { table, plan, writes, now: ctx.now, ids: ctx.ids, logOff: changeLogOff(ctx.env) },
      [],
    ),
  };
}

/**
 * Lookups are one level deep: when this table's formulas (`trees`, after the write) make a column depend on a
 * lookup, no other table may look that column up (422 naming who does).
 */
async function assertNotLookedUpDeeper(
  d1: D1Database,
  input: { columns: TableColumn[]; trees: ReadonlyMap<string, Expr>; dependentTables: string[] },
): Promise<void> {
  if (input.dependentTables.length === 0) return;
  const deep = [...lookupDependentColumns(input.columns, input.trees)];
  if (deep.length === 0) return;
  const { results } = await columnsNamingStatement(d1, input.dependentTables, deep).all<{
    name: string;
    table_name: string;
    formula: string;
  }>();
  if (results.length === 0) return;
  const hit = results[0]!;
  const col = input.columns.find((c) => deep.some((id) => id === c.id && hit.formula.includes(`"${id}"`)));
  const message = `{${col?.name ?? "this column"}} is looked up by {${hit.name}} of table "${hit.table_name}": a looked-up column cannot use a lookup itself (lookups are one level deep)`;
  throw unprocessable(message, [{ path: "expression", message }]);
}

/**
 * Recomputes every formula column of the given rows, in dependency order, and writes the changed cells —
 * after storing `writes` (a row or cell route's values) in the same batch. Rows that are deleted or belong
 * to another table are skipped; a write to one is 404, a write to a formula column 409. (oneMany cells are
 * read-only to clients but computed by the table service, which may store them here.)
 */
// eslint-disable-next-line max-lines-per-function -- the recalculation of a row set in dependency order, one pass kept whole so its budget reads in one place
export async function recomputeRowFormulas(
  ctx: ServiceContext,
  input: { tableId: string; rowIds: readonly string[]; writes?: readonly CellWrite[]; returnCells?: boolean },
): Promise<RecomputeResult> {
  const { tableId, rowIds, ...opts } = input;
  const d1 = d1Of(ctx.db);
  const { table, columns, linked, dependentTables } = await loadTable(ctx, tableId);
  if (!table || table.isDeleted) {
    // A deleted table recomputes nothing of its own, but the tables looking into it still learn of it.
    if (rowIds.length === 0 && (opts.writes ?? []).length === 0 && table)
      return { updatedRows: 0, formulaCells: {}, ...(dependentTables.length > 0 && { dependentTables }) };
    throw notFound("Table");
  }
  const writes = opts.writes ?? [];
  const byId = new Map(columns.map((c) => [c.id, c]));
  for (const w of writes) {
    const col = byId.get(w.columnId);
    if (!col || col.isDeleted) throw notFound("Column");
    if (col.data.type === "formula") throw conflict(`Column "${col.name}" is a formula column; its cells are computed`);
  }

  const trees = formulaTrees(columns);
  const plan = planComputation(columns, trees, new Set(trees.keys()), { readTargets: true });
  const allRowIds = [...new Set([...rowIds, ...writes.map((w) => w.rowId)])];
  // Nothing to store and no formula or lookup to compute (a table without them, as most bulk writes meet): the rows
  // are not read at all, and only the tables looking into this one are named.
  if (allRowIds.length === 0 || (plan.order.length === 0 && writes.length === 0))
    return {
      updatedRows: 0,
      formulaCells: {},
      ...(opts.returnCells && { formulaCellRecords: [] }),
      ...(dependentTables.length > 0 && { dependentTables }),
    };
  await readLinkedData(ctx, { plan, columns, linked });
  // Written columns are read too, so the write can be applied to the page before evaluation.
  const readColumns = [...new Set([...plan.readColumns, ...writes.map((w) => w.columnId)])];
  const page = await readRows(ctx, { tableId: table.id, rowIds: allRowIds, columnIds: readColumns });
  const rowIndex = new Map(page.rowIds.map((id, i) => [id, i]));
  const slot = new Map(readColumns.map((id, k) => [id, k]));

  const upserts: CellUpsert[] = [];
  for (const w of writes) {
    const i = rowIndex.get(w.rowId);
    if (i === undefined) throw notFound("Row");
    const text = w.data === null || w.data === undefined ? null : JSON.stringify(w.data);
    page.texts[i]![slot.get(w.columnId)!] = text;
    upserts.push({ rowId: w.rowId, columnId: w.columnId, data: text });
  }

  // The page is small: old values were read, so changes are found here and only those are written.
  // Past the run's budget the remaining cells are #LIMIT!: the write itself is never refused for a formula.
  const updatedRows =
    plan.order.length > 0
      ? await evaluateRows({ ...plan, readColumns }, page, upserts, { compare: true, run: runBudget("limit") })
      : 0;
  // The stored formula cells, when asked, are read in the same batch as the writes (after them).
  const readBack =
    opts.returnCells && plan.order.length > 0 ? formulaCellsStatement(d1, page.rowIds, plan.order) : null;
  let formulaCellRecords: StoredCell[] | undefined = opts.returnCells ? [] : undefined;
  if (upserts.length > 0 || readBack) {
    const identifierColumnId = columns.find((c) => c.isIdentifier)?.id;
    const scope = { tableId: table.id, workspaceId: table.workspaceId, now: ctx.now, off: changeLogOff(ctx.env) };
    const statements =
      upserts.length > 0
        ? [
            ...derivedCellLog(d1, scope, upserts),
            ...cellWriteStatements(d1, { ...scope, ids: ctx.ids, identifierColumnId }, upserts),
          ]
        : [];
    const results = await d1.batch<StoredCellRaw>(readBack ? [...statements, readBack] : statements);
    if (readBack) formulaCellRecords = results.at(-1)!.results.map(storedCell);
  }

  const formulaCells: Record<string, Record<string, unknown>> = {};
  page.rowIds.forEach((rowId, i) => {
    const out: Record<string, unknown> = {};
    for (const id of plan.order) {
      const text = page.texts[i]![slot.get(id)!];
      out[id] = text === null || text === undefined ? null : JSON.parse(text);
    }
    formulaCells[rowId] = out;
  });
  return {
    updatedRows,
    formulaCells,
    ...(formulaCellRecords && { formulaCellRecords }),
    ...(dependentTables.length > 0 && { dependentTables }),
  };
}
