/**
 * Select and multiSelect values given by label (docs/api-guide.md › Bulk writes): every row and cell write maps a
 * label to its item's id before the values are checked. An item id always wins over a label that happens to equal
 * it; a label that names no item, or several, is left as given, so the type check reports it (400).
 */
import type { ColumnRow } from "../serialize";

type Items = { id: string; label?: string }[];

function itemResolver(column: Pick<ColumnRow, "data">): ((v: unknown) => unknown) | null {
  const type = column.data.type;
  if (type !== "select" && type !== "multiSelect") return null;
  const items = ((column.data as { selectItems?: Items }).selectItems ?? []) as Items;
  const ids = new Set(items.map((i) => i.id));
  const byLabel = new Map<string, string | null>();
  for (const item of items) {
    if (item.label === undefined) continue;
    byLabel.set(item.label, byLabel.has(item.label) ? null : item.id);
  }
  const one = (v: unknown) => (typeof v === "string" && !ids.has(v) ? (byLabel.get(v) ?? v) : v);
  return type === "select" ? one : (v) => (Array.isArray(v) ? v.map(one) : v);
}

/** One value for `column` with labels mapped to item ids (other types: the value as given). */
export function resolveSelectLabel(column: Pick<ColumnRow, "data">, value: unknown): unknown {
  return itemResolver(column)?.(value) ?? value;
}

/** Each row's `{ [columnId]: value }` with select labels mapped to item ids (unknown columns untouched). */
export function resolveSelectLabels<T extends Record<string, unknown> | undefined>(
  columnsById: ReadonlyMap<string, ColumnRow>,
  inputs: readonly T[],
): T[] {
  const resolvers = new Map<string, (v: unknown) => unknown>();
  for (const [id, column] of columnsById) {
    const r = itemResolver(column);
    if (r) resolvers.set(id, r);
  }
  if (resolvers.size === 0) return [...inputs];
  return inputs.map((cells) => {
    if (!cells) return cells;
    let out: Record<string, unknown> | null = null;
    for (const [id, r] of resolvers) {
      if (!(id in cells)) continue;
      out ??= { ...cells };
      out[id] = r(cells[id]);
    }
    return (out ?? cells) as T;
  });
}
