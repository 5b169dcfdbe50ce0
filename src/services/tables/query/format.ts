/** `cellFormat=string` (docs/api-guide.md › Querying rows): each cell as the text a person sees. */
import { columnType } from "../cellValues";
import type { ColumnRow } from "../serialize";
import { selectItemsOf } from "./columnKinds";

function numberText(column: ColumnRow, v: number): string {
  const opts = (column.data as { number?: { format?: string; decimalPlaces?: number } }).number;
  const places = opts?.decimalPlaces;
  const text =
    places === undefined
      ? String(v)
      : v.toLocaleString("en-US", { minimumFractionDigits: places, maximumFractionDigits: places, useGrouping: false });
  if (opts?.format === "percent" || opts?.format === "percentage") return `${text}%`;
  return text;
}

const iso = (v: number) => {
  const d = new Date(v);
  return Number.isNaN(d.getTime()) ? String(v) : d.toISOString();
};

export function cellText(column: ColumnRow | undefined, v: unknown): string {
  if (v === null || v === undefined) return "";
  if (!column) return typeof v === "string" ? v : JSON.stringify(v);
  const labels = () => new Map(selectItemsOf(column).map((i) => [i.id, i.label]));
  switch (columnType(column)) {
    case "number":
      return typeof v === "number" ? numberText(column, v) : String(v);
    case "date":
      return typeof v === "number" ? iso(v) : String(v);
    case "select":
      return labels().get(v as string) ?? String(v);
    case "multiSelect": {
      const l = labels();
      return Array.isArray(v) ? v.map((id) => l.get(id as string) ?? String(id)).join(", ") : String(v);
    }
    case "checkbox":
      return v ? "true" : "false";
    default:
      if (typeof v === "string") return v;
      if (Array.isArray(v)) return v.map((x) => (typeof x === "string" ? x : JSON.stringify(x))).join(", ");
      if (typeof v === "object" && typeof (v as { error?: unknown }).error === "string")
        return (v as { error: string }).error;
      return String(v);
  }
}

export function formatCells(cells: Record<string, unknown>, byId: ReadonlyMap<string, ColumnRow>) {
  return Object.fromEntries(Object.entries(cells).map(([id, v]) => [id, cellText(byId.get(id), v)]));
}
