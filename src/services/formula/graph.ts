/**
 * The dependency graph of a table's formula columns: which columns a tree reads, the order in which formula
 * columns must be computed (a column after every formula column it reads), and who depends on whom.
 */
import type { Expr, StoredFormula } from "./expression";
import { expressionYieldsDate } from "./evaluate";
import type { ColumnMeta } from "./values";

/** A column as the formula engine sees it (from `columns`). */
export interface TableColumn {
  id: string;
  name: string;
  type: string;
  isIdentifier: boolean;
  isDeleted: boolean;
  data: Record<string, unknown> & { type: string };
  formula: StoredFormula | null;
}

/** Column ids a tree reads (iterative: persisted trees are depth-checked, but this is cheap to make safe). */
export function referencedColumns(expr: Expr): Set<string> {
  const out = new Set<string>();
  const stack: Expr[] = [expr];
  while (stack.length > 0) {
    const e = stack.pop()!;
    if (e.kind === "column") out.add(e.columnId);
    else if (e.kind === "neg") stack.push(e.arg);
    else if (e.kind === "op" || e.kind === "call") stack.push(...e.args);
  }
  return out;
}

/** Live formula columns with a persisted tree, by id, with the tree to use (an override replaces one). */
export function formulaTrees(
  columns: readonly TableColumn[],
  override?: { columnId: string; expression: Expr },
): Map<string, Expr> {
  const out = new Map<string, Expr>();
  for (const c of columns) {
    if (c.isDeleted) continue;
    if (override && c.id === override.columnId) out.set(c.id, override.expression);
    else if (c.data.type === "formula" && c.formula?.expression) out.set(c.id, c.formula.expression);
  }
  return out;
}

/** A path X → … → X through formula columns, or null. */
export function findCycle(start: string, trees: ReadonlyMap<string, Expr>): string[] | null {
  const deps = (id: string) => [...referencedColumns(trees.get(id)!)].filter((d) => trees.has(d));
  const visited = new Set<string>();
  const path: string[] = [start];
  const walk = (id: string): boolean => {
    for (const next of deps(id)) {
      if (next === start) {
        path.push(next);
        return true;
      }
      if (visited.has(next)) continue;
      visited.add(next);
      path.push(next);
      if (walk(next)) return true;
      path.pop();
    }
    return false;
  };
  return walk(start) ? path : null;
}

/**
 * Formula columns in an order where each comes after the formula columns it reads (Kahn's algorithm, ties
 * by id for determinism). Columns caught in a cycle (which apply refuses, so only from corrupt data) are
 * returned separately.
 */
export function computeOrder(trees: ReadonlyMap<string, Expr>): { order: string[]; cyclic: string[] } {
  const deps = new Map<string, Set<string>>();
  const dependents = new Map<string, string[]>();
  for (const [id, expr] of trees) {
    const d = new Set([...referencedColumns(expr)].filter((x) => trees.has(x)));
    deps.set(id, d);
    for (const x of d) dependents.set(x, [...(dependents.get(x) ?? []), id]);
  }
  const ready = [...trees.keys()].filter((id) => deps.get(id)!.size === 0).sort();
  const order: string[] = [];
  while (ready.length > 0) {
    const id = ready.shift()!;
    order.push(id);
    for (const next of dependents.get(id) ?? []) {
      const d = deps.get(next)!;
      d.delete(id);
      if (d.size === 0) {
        ready.push(next);
        ready.sort();
      }
    }
  }
  const done = new Set(order);
  return { order, cyclic: [...trees.keys()].filter((id) => !done.has(id)).sort() };
}

/** `columnId` and every formula column that reads it directly or through other formula columns. */
export function withDependents(columnId: string, trees: ReadonlyMap<string, Expr>): Set<string> {
  const out = new Set([columnId]);
  let grew = true;
  while (grew) {
    grew = false;
    for (const [id, expr] of trees) {
      if (out.has(id)) continue;
      for (const ref of referencedColumns(expr)) {
        if (out.has(ref)) {
          out.add(id);
          grew = true;
          break;
        }
      }
    }
  }
  return out;
}

/** How each column's cells are read by the evaluator (labels of select items, date-typed formula results). */
export function columnMetas(
  columns: readonly TableColumn[],
  trees: ReadonlyMap<string, Expr>,
): Map<string, ColumnMeta> {
  const metas = new Map<string, ColumnMeta>();
  for (const c of columns) {
    if (c.isDeleted) continue;
    const type = trees.has(c.id) ? "formula" : c.data.type;
    const meta: ColumnMeta = { id: c.id, type };
    const items = c.data.selectItems;
    if ((type === "select" || type === "multiSelect") && Array.isArray(items)) {
      meta.labels = new Map(
        items.flatMap((i) =>
          i && typeof i === "object" && typeof i.id === "string"
            ? [[i.id, String(i.label ?? "")] as [string, string]]
            : [],
        ),
      );
    }
    metas.set(c.id, meta);
  }
  // Date-ness of formula results, in dependency order so a formula reading a date formula sees it.
  const { order } = computeOrder(trees);
  for (const id of order) {
    const meta = metas.get(id);
    if (meta)
      meta.yieldsDate = expressionYieldsDate(trees.get(id)!, (ref) => {
        const m = metas.get(ref);
        return m ? m.type === "date" || Boolean(m.yieldsDate) : false;
      });
  }
  return metas;
}
