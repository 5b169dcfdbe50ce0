/**
 * oneMany cells are computed at read time from the column's filter (docs/api-guide.md › Tables, columns, rows, cells): a target row is related when its
 * cell compares (`op`) with a literal `value` or with the source row's `sourceColumnId` cell; items combine with
 * `filterConjunction`. For a page of source rows each target table is loaded once (one statement per target
 * table, all in one D1 batch); `eq` items are answered through a hash index built once per request.
 */
import { and, eq, sql } from "drizzle-orm";
import { rows } from "../../db/schema";
import type { Db } from "../../env";
import type { ServiceContext } from "../context";
import { inJson } from "../../db/sql";
import type { FilterOp, OneManyOptions } from "../../schemas/tables";
import type { ColumnRow } from "./serialize";

/** A row with its stored values by column id (live columns only); computed values are added in place. */
export interface RowValues {
  id: string;
  cells: Record<string, unknown>;
}

interface TargetTable {
  ids: string[];
  values: Record<string, unknown>[];
  /** targetColumnId → value key → positions (ascending), built on first use. */
  eqIndex: Map<string, Map<string, number[]>>;
}

export function isEmptyValue(v: unknown): boolean {
  return v === null || v === undefined || v === "" || (Array.isArray(v) && v.length === 0);
}

/** Equal values have equal keys; arrays compare as sets (a multiSelect's order carries no meaning). */
function valueKey(v: unknown): string | null {
  if (v === null || v === undefined) return null;
  if (Array.isArray(v)) return `a:${JSON.stringify(v.map((x) => valueKey(x)).sort())}`;
  switch (typeof v) {
    case "string":
      return `s:${v}`;
    case "number":
      return `n:${v}`;
    case "boolean":
      return `b:${v}`;
    default:
      return `o:${JSON.stringify(v)}`;
  }
}

function compare(a: unknown, b: unknown): number | null {
  if (typeof a === "number" && typeof b === "number") return a - b;
  if (typeof a === "string" && typeof b === "string") return a < b ? -1 : a > b ? 1 : 0;
  return null;
}

/**
 * Whether a target cell value satisfies one filter item against `operand` (the literal or the source cell).
 * A missing operand matches nothing, except for isEmpty/isNotEmpty which ignore it.
 */
export function filterItemMatches(op: FilterOp, target: unknown, operand: unknown): boolean {
  if (op === "isEmpty") return isEmptyValue(target);
  if (op === "isNotEmpty") return !isEmptyValue(target);
  if (operand === null || operand === undefined) return false;
  switch (op) {
    case "eq":
      return valueKey(target) === valueKey(operand);
    case "neq":
      return valueKey(target) !== valueKey(operand);
    case "lt":
    case "lte":
    case "gt":
    case "gte": {
      const c = compare(target, operand);
      if (c === null) return false;
      return op === "lt" ? c < 0 : op === "lte" ? c <= 0 : op === "gt" ? c > 0 : c >= 0;
    }
    case "contains": {
      if (typeof target === "string" && typeof operand === "string")
        return target.toLowerCase().includes(operand.toLowerCase());
      if (Array.isArray(target)) {
        const keys = new Set(target.map(valueKey));
        return Array.isArray(operand) ? operand.every((o) => keys.has(valueKey(o))) : keys.has(valueKey(operand));
      }
      return false;
    }
    case "in": {
      const list = new Set((Array.isArray(operand) ? operand : [operand]).map(valueKey));
      if (Array.isArray(target)) return target.some((t) => list.has(valueKey(t)));
      const k = valueKey(target);
      return k !== null && list.has(k);
    }
  }
}

function eqPositions(target: TargetTable, columnId: string, operand: unknown): number[] {
  let index = target.eqIndex.get(columnId);
  if (!index) {
    index = new Map();
    target.values.forEach((values, pos) => {
      const k = valueKey(values[columnId]);
      if (k === null) return;
      const list = index!.get(k);
      if (list) list.push(pos);
      else index!.set(k, [pos]);
    });
    target.eqIndex.set(columnId, index);
  }
  return index.get(valueKey(operand) ?? "") ?? [];
}

/** Target row ids related to one source row, in the target table's row order. */
export function relatedRowIds(options: OneManyOptions, target: TargetTable, source: RowValues): string[] {
  const items = options.filter.map((item) => ({
    ...item,
    operand: item.sourceColumnId !== undefined ? source.cells[item.sourceColumnId] : item.value,
  }));
  if (items.length === 0) return [];
  const matchesAt = (pos: number, item: (typeof items)[number]) =>
    filterItemMatches(item.op, target.values[pos]![item.targetColumnId], item.operand);
  const hashable = (item: (typeof items)[number]) =>
    item.op === "eq" && item.operand !== null && item.operand !== undefined;
  let positions: number[];
  if (options.filterConjunction === "or") {
    const hit = new Set<number>();
    for (const item of items) {
      if (hashable(item)) for (const p of eqPositions(target, item.targetColumnId, item.operand)) hit.add(p);
      else for (let p = 0; p < target.ids.length; p++) if (!hit.has(p) && matchesAt(p, item)) hit.add(p);
    }
    positions = [...hit].sort((a, b) => a - b);
  } else {
    const lead = items.find(hashable);
    const candidates = lead ? eqPositions(target, lead.targetColumnId, lead.operand) : target.ids.map((_, p) => p);
    positions = candidates.filter((p) => items.every((item) => matchesAt(p, item)));
  }
  return positions.map((p) => target.ids[p]!);
}

/**
 * Loads what the oneMany columns need: per target table, its live rows in listing order with the cells of the
 * referenced target columns (live ones only; a deleted table or column reads as empty).
 */
async function loadTargets(db: Db, oneManyColumns: readonly ColumnRow[]): Promise<Map<string, TargetTable>> {
  const needed = new Map<string, Set<string>>();
  for (const col of oneManyColumns) {
    const opts = (col.data as { oneMany?: OneManyOptions }).oneMany;
    if (!opts) continue;
    const set = needed.get(opts.tableId) ?? new Set<string>();
    for (const item of opts.filter) set.add(item.targetColumnId);
    needed.set(opts.tableId, set);
  }
  const out = new Map<string, TargetTable>();
  const entries = [...needed.entries()];
  if (entries.length === 0) return out;
  const queries = entries.map(([tableId, columnIds]) =>
    db
      .select({
        id: rows.id,
        cells: sql<string | null>`(SELECT json_group_object(c.column_id, json(c.data)) FROM cells c
          WHERE c.row_id = "rows"."id" AND c.column_id IN (SELECT id FROM columns WHERE table_id = ${tableId} AND is_deleted = 0
            AND ${inJson(sql`id`, [...columnIds])}))`,
      })
      .from(rows)
      .where(
        and(
          eq(rows.tableId, tableId),
          eq(rows.isDeleted, false),
          sql`EXISTS (SELECT 1 FROM tables t WHERE t.id = ${tableId} AND t.is_deleted = 0)`,
        ),
      )
      .orderBy(rows.seq, rows.id),
  );
  const results = await db.batch(queries as [(typeof queries)[number], ...(typeof queries)[number][]]);
  entries.forEach(([tableId], i) => {
    const list = results[i]!;
    out.set(tableId, {
      ids: list.map((r) => r.id),
      values: list.map((r) => (r.cells ? (JSON.parse(r.cells) as Record<string, unknown>) : {})),
      eqIndex: new Map(),
    });
  });
  return out;
}

/** Sets `cells[column.id]` to the related target row ids for every oneMany column and every source row. */
export async function fillOneManyValues(
  ctx: ServiceContext,
  { columns: oneManyColumns, rows: sourceRows }: { columns: readonly ColumnRow[]; rows: readonly RowValues[] },
): Promise<void> {
  if (oneManyColumns.length === 0 || sourceRows.length === 0) return;
  const targets = await loadTargets(ctx.db, oneManyColumns);
  for (const col of oneManyColumns) {
    const opts = (col.data as { oneMany?: OneManyOptions }).oneMany;
    const target = opts ? targets.get(opts.tableId) : undefined;
    for (const row of sourceRows) row.cells[col.id] = opts && target ? relatedRowIds(opts, target, row) : [];
  }
}
