/**
 * D1 reads of the formula engine: the table with its columns and linked tables, and the linked rows lookups read.
 * Their statements, and the cell writes, are in ./queries.ts; pages of rows and their cells are read in ./rowPages.ts.
 */
import type { TableColumn } from "./graph";
import { d1Of } from "../../db/d1";
import type { StoredFormula } from "./expression";
import type { ServiceContext } from "../context";
import { linkedRowsStatement, markBusyStatement, tableLoadStatements } from "./queries";

/**
 * How long a computation of a whole table marks it busy (tables.formula_busy_until): far longer than any run of the
 * coordinator takes, so a write committed while it reads the rows always sees the mark.
 */
const BUSY_MS = 15 * 60_000;

export interface TableInfo {
  id: string;
  workspaceId: string;
  projectId: string;
  isDeleted: boolean;
}

export interface LoadedTable {
  table: TableInfo | null;
  columns: TableColumn[];
  /** For each relation (oneMany column) of the table: the live columns of the live table it links to, in the same project. */
  linked: Map<string, TableColumn[]>;
  /** Other tables with a formula that may look into this one through a relation (recomputed after a change here). */
  dependentTables: string[];
}

function tableColumn(c: Record<string, unknown>): TableColumn {
  const data = parseJson(c.data) as (Record<string, unknown> & { type: string }) | null;
  const safeData = data && typeof data === "object" && typeof data.type === "string" ? data : { type: "text" };
  return {
    id: String(c.id),
    name: String(c.name),
    type: safeData.type,
    isIdentifier: Boolean(c.is_identifier),
    isDeleted: Boolean(c.is_deleted),
    data: safeData,
    formula: (parseJson(c.formula) as StoredFormula | null) ?? null,
  };
}

/** The table, its columns, its relations' linked columns and the tables that look into it: one round trip. */
export async function loadTable(
  ctx: ServiceContext,
  tableId: string,
  opts: { busy?: boolean } = {},
): Promise<LoadedTable> {
  const d1 = d1Of(ctx.db);
  const busy = opts.busy ? [markBusyStatement(d1, tableId, ctx.now + BUSY_MS)] : [];
  const results = await d1.batch<Record<string, unknown>>([...busy, ...tableLoadStatements(d1, tableId)]);
  const [tables, columns, linkedColumns, dependents] = results.slice(busy.length);
  const t = tables!.results[0];
  const cols = columns!.results.map(tableColumn);
  const byTable = new Map<string, TableColumn[]>();
  for (const c of linkedColumns!.results) {
    const list = byTable.get(String(c.table_id)) ?? [];
    list.push(tableColumn(c));
    byTable.set(String(c.table_id), list);
  }
  const linked = new Map<string, TableColumn[]>();
  for (const c of cols) {
    const target =
      c.data.type === "oneMany" && !c.isDeleted
        ? (c.data.oneMany as { tableId?: unknown } | undefined)?.tableId
        : undefined;
    const list = typeof target === "string" ? byTable.get(target) : undefined;
    if (list) linked.set(c.id, list);
  }
  return {
    table: t
      ? {
          id: String(t.id),
          workspaceId: String(t.workspace_id),
          projectId: String(t.project_id),
          isDeleted: Boolean(t.is_deleted),
        }
      : null,
    columns: cols,
    linked,
    dependentTables: dependents!.results.map((r) => String(r.table_id)),
  };
}

/**
 * A linked table's live rows in listing order (seq, id) with the raw values of `columnIds`, for lookups: one
 * query per table, all in one batch.
 */
export async function readLinkedRows(
  ctx: ServiceContext,
  wanted: ReadonlyMap<string, readonly string[]>,
): Promise<Map<string, { ids: string[]; values: Record<string, unknown>[] }>> {
  const d1 = d1Of(ctx.db);
  const entries = [...wanted.entries()];
  const out = new Map<string, { ids: string[]; values: Record<string, unknown>[] }>();
  if (entries.length === 0) return out;
  const results = await d1.batch<Record<string, unknown>>(
    entries.map(([tableId, cols]) => linkedRowsStatement(d1, tableId, cols)),
  );
  entries.forEach(([tableId], i) => {
    const rows = results[i]!.results;
    out.set(tableId, {
      ids: rows.map((r) => String(r.id)),
      values: rows.map((r) => (parseJson(r.cells) as Record<string, unknown> | null) ?? {}),
    });
  });
  return out;
}

function parseJson(text: unknown): unknown {
  if (typeof text !== "string") return null;
  try {
    return JSON.parse(text);
  } catch {
    return null;
  }
}
