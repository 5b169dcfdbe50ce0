/**
 * What a query's rows carry (docs/api-guide.md › Querying rows): `fields` (the identifier column always),
 * `expand` (related rows inline, two levels at most, 100 per cell, `truncated` past that) and
 * `cellFormat=string` (every cell as the text a person sees).
 */
import type { ErrorDetail } from "../../../errors";
import type { ServiceContext } from "../../context";
import { columnType } from "../cellValues";
import { readRowsAcrossTables } from "../rowReads";
import type { ColumnRow } from "../serialize";
import { formatCells } from "./format";

export const MAX_EXPANDED_PER_CELL = 100;

export interface ShapeOptions {
  fields: Set<string> | null;
  /** oneMany column id → the second-level column ids to expand in its rows. */
  expand: Map<string, string[]>;
  string: boolean;
}

type Row = {
  cells: Record<string, unknown>;
  expanded?: Record<string, unknown[]>;
  truncated?: Record<string, boolean>;
};

export function checkShape(
  q: { fields?: string[]; expand?: string[]; cellFormat?: "json" | "string" },
  columnsById: ReadonlyMap<string, ColumnRow>,
  details: ErrorDetail[],
): ShapeOptions {
  let fields: Set<string> | null = null;
  if (q.fields) {
    fields = new Set();
    q.fields.forEach((id, i) => {
      if (columnsById.has(id)) fields!.add(id);
      else details.push({ path: `fields.${i}`, message: "no such column in this table" });
    });
    for (const c of columnsById.values()) if (c.isIdentifier) fields.add(c.id);
  }
  const expand = new Map<string, string[]>();
  (q.expand ?? []).forEach((path, i) => {
    const [first, second, ...rest] = path.split(".");
    const column = columnsById.get(first!);
    if (!column || columnType(column) !== "oneMany")
      details.push({ path: `expand.${i}`, message: "a oneMany column of this table" });
    else if (rest.length) details.push({ path: `expand.${i}`, message: "at most two levels (a.b)" });
    else expand.set(first!, [...(expand.get(first!) ?? []), ...(second ? [second] : [])]);
  });
  return { fields, expand, string: q.cellFormat === "string" };
}

/** Expands the oneMany `columnId`s of `list` in place (each at most MAX_EXPANDED_PER_CELL related rows). */
async function expandRows(ctx: ServiceContext, list: Row[], expand: Map<string, string[]>, level: number) {
  if (expand.size === 0 || list.length === 0) return;
  const wanted = new Set<string>();
  for (const r of list)
    for (const columnId of expand.keys()) {
      const ids = r.cells[columnId];
      if (Array.isArray(ids)) for (const id of ids.slice(0, MAX_EXPANDED_PER_CELL)) wanted.add(id as string);
    }
  const found = await readRowsAcrossTables(ctx, [...wanted]);
  const related: Row[] = [];
  for (const r of list) {
    const expanded: Record<string, Row[]> = {};
    const truncated: Record<string, boolean> = {};
    for (const columnId of expand.keys()) {
      const ids = Array.isArray(r.cells[columnId]) ? (r.cells[columnId] as string[]) : [];
      if (ids.length > MAX_EXPANDED_PER_CELL) truncated[columnId] = true;
      expanded[columnId] = ids
        .slice(0, MAX_EXPANDED_PER_CELL)
        .flatMap((id) => (found.has(id) ? [{ ...found.get(id)! } as Row] : []));
      related.push(...expanded[columnId]);
    }
    r.expanded = expanded;
    if (Object.keys(truncated).length) r.truncated = truncated;
  }
  if (level === 1) {
    const next = new Map<string, string[]>();
    for (const seconds of expand.values()) for (const s of seconds) next.set(s, []);
    // A second-level id names a relation of the related table: rows of other tables simply have no such cell.
    await expandRows(ctx, related, next, 2);
  }
}

/** The page's rows as the query asks for them. */
export async function shapePage<R extends Row>(
  ctx: ServiceContext,
  input: { columns: readonly ColumnRow[]; shape: ShapeOptions; rows: R[] },
): Promise<R[]> {
  const { shape } = input;
  const list = input.rows;
  await expandRows(ctx, list, shape.expand, 1);
  if (shape.fields)
    for (const r of list) r.cells = Object.fromEntries(Object.entries(r.cells).filter(([id]) => shape.fields!.has(id)));
  if (shape.string) {
    const byId = new Map(input.columns.map((c) => [c.id, c]));
    for (const r of list) r.cells = formatCells(r.cells, byId);
  }
  return list;
}
