/**
 * Where each CSV column goes (docs/api-guide.md › CSV import and export): a live column matched by name or id, a
 * column the import creates (typed by the caller or inferred from the sample), or nothing (a computed column).
 * Also the conversion of one record into values by target, and the column writes both writers share.
 */
import type { ServiceContext } from "../context";
import { createColumn, liveColumnsQuery } from "../tables/columns";
import { columnType, isComputedColumn } from "../tables/cellValues";
import type { ColumnDataInput } from "../../schemas/tables";
import type { ColumnRow, TableRow } from "../tables/serialize";
import { ImportColumn, inferType, type ImportType } from "./convert";
import type { CsvRecord, RowProblem } from "./records";

export interface Target {
  header: string;
  /** null: the CSV column is not imported (a computed column of the table). */
  column: ImportColumn | null;
  created: boolean;
  type: ImportType | null;
}

/** A converted row: values by target index (undefined: no value). */
export type RowValues = (unknown | undefined)[];

/** A new column before it exists: what conversion needs (its type and select items). */
function provisionalColumn(table: TableRow, header: string, type: ImportType, index: number): ColumnRow {
  return {
    id: `pending-${index}`,
    tableId: table.id,
    projectId: table.projectId,
    workspaceId: table.workspaceId,
    name: header,
    slug: "",
    originId: "",
    description: "",
    isIdentifier: false,
    data: (type === "select" || type === "multiSelect" ? { type, selectItems: [] } : { type }) as ColumnRow["data"],
    formula: null,
    isDeleted: false,
    createdAt: 0,
    updatedAt: 0,
  };
}

export function matchTargets(
  table: TableRow,
  headers: string[],
  live: readonly ColumnRow[],
  sample: readonly CsvRecord[],
  types: Record<string, ImportType>,
): Target[] {
  const byName = new Map<string, ColumnRow>();
  for (const c of live) if (!byName.has(c.name.trim().toLowerCase())) byName.set(c.name.trim().toLowerCase(), c);
  const byId = new Map(live.map((c) => [c.id, c]));
  return headers.map((header, i) => {
    const existing = byId.get(header) ?? byName.get(header.toLowerCase());
    if (existing) {
      if (isComputedColumn(existing)) return { header, column: null, created: false, type: null };
      return {
        header,
        column: new ImportColumn(existing, header),
        created: false,
        type: columnType(existing) as ImportType,
      };
    }
    const given = types[header] ?? Object.entries(types).find(([k]) => k.toLowerCase() === header.toLowerCase())?.[1];
    const type = given ?? inferType(sample.map((r) => r.record[i] ?? ""));
    return { header, column: new ImportColumn(provisionalColumn(table, header, type, i), header), created: true, type };
  });
}

/** One converted row: values by target index, or its problems. */
export function convertRecord(
  targets: readonly Target[],
  rec: CsvRecord,
): { values: RowValues } | { problems: RowProblem[] } {
  const line = rec.info.lines;
  if (rec.record.length !== targets.length) {
    // A trailing empty field list ("a,b,") is still a mismatch: say what was found.
    return { problems: [{ line, message: `${rec.record.length} fields; the header has ${targets.length}` }] };
  }
  const values: RowValues = new Array(targets.length);
  let problems: RowProblem[] | null = null;
  for (let i = 0; i < targets.length; i++) {
    const t = targets[i]!;
    if (!t.column) continue;
    const { value, problem } = t.column.read(rec.record[i]!);
    if (problem) (problems ??= []).push({ line, column: t.header, message: problem });
    else values[i] = value;
  }
  return problems ? { problems } : { values };
}

/**
 * Creates the columns the import adds (select items as collected so far), then reads the table's live columns
 * back so the commit stores each as it is, with its items. The ids of the columns it creates are pushed to
 * `created` as they are made (so a caller can remove them after a failure midway), and returned.
 */
export async function createTargets(
  ctx: ServiceContext,
  table: TableRow,
  targets: Target[],
  created: string[] = [],
): Promise<string[]> {
  if (!targets.some((t) => t.created)) return created;
  for (const t of targets) {
    if (!t.created || !t.column) continue;
    const data = {
      ...t.column.column.data,
      ...(t.column.items.length ? { selectItems: t.column.items } : {}),
    } as ColumnDataInput;
    const dto = await createColumn(ctx, { tableId: table.id, name: t.header, data, changeSource: "import" });
    t.column.column = { ...t.column.column, id: dto._id, name: dto.name };
    t.column.added = false;
    created.push(dto._id);
  }
  const live = await liveColumnsQuery(ctx.db, table.id);
  const byId = new Map(live.map((c) => [c.id, c]));
  for (const t of targets) {
    const stored = t.column && byId.get(t.column.column.id);
    if (stored && t.column)
      t.column.column = {
        ...stored,
        data: {
          ...stored.data,
          ...(t.column.items.length ? { selectItems: t.column.items } : {}),
        } as ColumnRow["data"],
      };
  }
  return created;
}
