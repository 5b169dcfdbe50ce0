/** A saved view as the API shows it (docs/api-guide.md › Views and aggregates), with its `warnings`. */
import type { tableViews } from "../../db/schema";
import type { ColumnRow } from "../tables/serialize";

export type ViewRow = typeof tableViews.$inferSelect;

export interface ViewInput {
  filter?: unknown;
  sort?: { columnId: string; direction: "asc" | "desc" }[];
  fields?: string[] | null;
  hidden?: string[];
}

/** Column ids a filter tree names, with no recursion deeper than the tree (depth ≤ 5 is checked on write). */
function filterColumnIds(filter: unknown): string[] {
  const out: string[] = [];
  const stack: unknown[] = [filter];
  while (stack.length) {
    const node = stack.pop();
    if (!node || typeof node !== "object") continue;
    const n = node as Record<string, unknown>;
    if (Array.isArray(n.and)) stack.push(...(n.and as unknown[]));
    else if (Array.isArray(n.or)) stack.push(...(n.or as unknown[]));
    else if (typeof n.columnId === "string") out.push(n.columnId);
  }
  return out;
}

/** The members of the view on columns deleted since it was saved (they are ignored when its rows are read). */
export function viewWarnings(view: ViewRow, columns: readonly ColumnRow[]): { columnId: string; message: string }[] {
  const live = new Set(columns.map((c) => c.id));
  const out = new Map<string, string>();
  for (const id of filterColumnIds(view.filter))
    if (!live.has(id)) out.set(id, "the column was deleted; the view's conditions on it are ignored");
  for (const k of view.sort) if (!live.has(k.columnId)) out.set(k.columnId, "the column was deleted; not sorted on");
  for (const id of [...(view.fields ?? []), ...view.hidden])
    if (!live.has(id) && !out.has(id)) out.set(id, "the column was deleted");
  return [...out].map(([columnId, message]) => ({ columnId, message }));
}

export function viewDto(v: ViewRow, columns: readonly ColumnRow[]) {
  const warnings = viewWarnings(v, columns);
  return {
    _id: v.id,
    tableId: v.tableId,
    projectId: v.projectId,
    workspaceId: v.workspaceId,
    userId: v.userId,
    name: v.name,
    filter: v.filter ?? null,
    sort: v.sort,
    fields: v.fields ?? null,
    hidden: v.hidden,
    createdAt: v.createdAt,
    updatedAt: v.updatedAt,
    warnings,
  };
}
