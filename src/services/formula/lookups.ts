/**
 * Lookups over relations (docs/api-guide.md › Formulas, "Lookups and rollups"): `LOOKUP({Relation}, {Column})`,
 * where `{Relation}` is a oneMany column of the formula's table and `{Column}` a column of the table it links to,
 * yields the linked rows' values of that column as a list, in the linked table's row order; SUM, COUNT, AVERAGE,
 * MIN, MAX, ARRAYJOIN… roll the list up. The relation's filter decides which rows are linked, as it does for the
 * relation's own cells.
 *
 * In the tree a lookup is `{ kind: "call", fn: "LOOKUP", args: [column(relation), column(linked column)] }`; any
 * other LOOKUP is Excel's. Bounds: a lookup reads at most `formulaLimits.arrayElements` linked rows (past that the
 * cell is #LIMIT!), and lookups are one level deep: the looked-up column may not itself be, or depend on, a
 * lookup (422), so a change recomputes the tables that look into it and stops there — which also rules out cycles
 * across tables.
 */
import type { OneManyOptions } from "../../schemas/tables";
import { relatedRowIds } from "../tables/relations";
import type { Expr } from "./expression";
import { columnMetas, formulaTrees, type TableColumn } from "./graph";
import { formulaLimits } from "./limits";
import { SPENT } from "./cellBudget";
import { cellToValue, formulaError, type ColumnMeta, type FormulaValue } from "./values";

/** For each oneMany column of a table (by id): the live columns of the table it links to. */
export type LinkedColumns = ReadonlyMap<string, readonly TableColumn[]>;

export interface RelationLookup {
  relationId: string;
  columnId: string;
}

/** Whether column `id` of the table is a relation (a live oneMany column). */
export type IsRelation = (id: string) => boolean;

export function relationTest(columns: readonly TableColumn[]): IsRelation {
  const ids = new Set(columns.filter((c) => !c.isDeleted && c.data.type === "oneMany").map((c) => c.id));
  return (id) => ids.has(id);
}

/** The relation lookup `e` is, or null (Excel's LOOKUP, or not a LOOKUP). */
export function relationLookupOf(e: Expr, isRelation: IsRelation): RelationLookup | null {
  if (e.kind !== "call" || e.fn.toUpperCase() !== "LOOKUP" || e.args.length !== 2) return null;
  const [rel, col] = e.args;
  if (rel?.kind !== "column" || !isRelation(rel.columnId) || col?.kind !== "column") return null;
  return { relationId: rel.columnId, columnId: col.columnId };
}

/** Every relation lookup in a tree. */
export function relationLookups(expr: Expr, isRelation: IsRelation): RelationLookup[] {
  const out: RelationLookup[] = [];
  const stack: Expr[] = [expr];
  while (stack.length > 0) {
    const e = stack.pop()!;
    const lookup = relationLookupOf(e, isRelation);
    if (lookup) out.push(lookup);
    else if (e.kind === "neg") stack.push(e.arg);
    else if (e.kind === "op" || e.kind === "call") stack.push(...e.args);
  }
  return out;
}

/** The id under which the evaluator reads a lookup's list (never a column id: those have no colon). */
export const lookupSlotId = (l: RelationLookup) => `lookup:${l.relationId}:${l.columnId}`;

/** The tree with each relation lookup replaced by a read of its list, as a column (a reference: SUM counts only its numbers). */
export function withLookupReads(expr: Expr, isRelation: IsRelation): Expr {
  const lookup = relationLookupOf(expr, isRelation);
  if (lookup) return { kind: "column", columnId: lookupSlotId(lookup) };
  switch (expr.kind) {
    case "neg":
      return { ...expr, arg: withLookupReads(expr.arg, isRelation) };
    case "op":
      return { ...expr, args: [withLookupReads(expr.args[0], isRelation), withLookupReads(expr.args[1], isRelation)] };
    case "call":
      return { ...expr, args: expr.args.map((a) => withLookupReads(a, isRelation)) };
    default:
      return expr;
  }
}

/** Formula columns of a table that use a relation lookup, directly or through the table's other formula columns. */
export function lookupDependentColumns(
  columns: readonly TableColumn[],
  trees: ReadonlyMap<string, Expr> = formulaTrees(columns),
): Set<string> {
  const isRelation = relationTest(columns);
  const out = new Set<string>();
  for (const [id, expr] of trees) if (relationLookups(expr, isRelation).length > 0) out.add(id);
  let grew = out.size > 0;
  while (grew) {
    grew = false;
    for (const [id, expr] of trees) {
      if (out.has(id)) continue;
      if (referencesAny(expr, out)) {
        out.add(id);
        grew = true;
      }
    }
  }
  return out;
}

function referencesAny(expr: Expr, ids: ReadonlySet<string>): boolean {
  const stack: Expr[] = [expr];
  while (stack.length > 0) {
    const e = stack.pop()!;
    if (e.kind === "column" && ids.has(e.columnId)) return true;
    if (e.kind === "neg") stack.push(e.arg);
    else if (e.kind === "op" || e.kind === "call") stack.push(...e.args);
  }
  return false;
}

/**
 * The meaning problem of one relation lookup, or null: the linked column must be a live column of the linked
 * table, not a relation itself, and not a lookup (one level deep).
 */
export function lookupProblem(lookup: RelationLookup, linked: LinkedColumns): string | null {
  const columns = linked.get(lookup.relationId);
  if (!columns) return "The linked table of this relation is deleted or not available";
  const col = columns.find((c) => c.id === lookup.columnId && !c.isDeleted);
  if (!col) return `Column ${lookup.columnId} is not a column of the linked table`;
  if (col.data.type === "oneMany")
    return `{${col.name}} is a relation: LOOKUP reads a column of the linked rows, not their relations`;
  if (lookupDependentColumns(columns).has(col.id)) {
    return `{${col.name}} uses a lookup itself: lookups are one level deep (look up the columns it reads instead)`;
  }
  return null;
}

// ---- evaluation --------------------------------------------------------------------------------------------

/** A linked table as a run reads it: live rows in listing order and their raw cell values (needed columns only). */
export interface LinkedRows {
  ids: string[];
  values: Record<string, unknown>[];
  eqIndex: Map<string, Map<string, number[]>>;
  positionOf: Map<string, number>;
  metas: Map<string, ColumnMeta>;
}

/** What a run needs to answer one relation's lookups. */
export interface LinkedRelation {
  options: OneManyOptions;
  rows: LinkedRows;
}

export function linkedRows(
  ids: string[],
  values: Record<string, unknown>[],
  columns: readonly TableColumn[],
): LinkedRows {
  return {
    ids,
    values,
    eqIndex: new Map(),
    positionOf: new Map(ids.map((id, i) => [id, i])),
    metas: columnMetas(columns, formulaTrees(columns)),
  };
}

/**
 * The list a lookup yields for one source row, whose raw cells `sourceCell` reads (for the filter's
 * `sourceColumnId` items).
 */
export function lookupValue(
  relation: LinkedRelation,
  columnId: string,
  rowId: string,
  sourceCell: (columnId: string) => unknown,
): FormulaValue {
  const cells: Record<string, unknown> = {};
  for (const item of relation.options.filter)
    if (item.sourceColumnId) cells[item.sourceColumnId] = sourceCell(item.sourceColumnId);
  const ids = relatedRowIds(relation.options, relation.rows, { id: rowId, cells });
  // Past the list cap the whole cell is #LIMIT! (as any list past it is), not an error value a COUNTA would count.
  if (ids.length > formulaLimits.arrayElements) throw SPENT;
  const meta = relation.rows.metas.get(columnId);
  if (!meta) return formulaError("#REF!");
  return ids.map((id) => cellToValue(relation.rows.values[relation.rows.positionOf.get(id)!]![columnId], meta));
}
