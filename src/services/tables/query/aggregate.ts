/**
 * GET /table/{tableId}/aggregate (docs/api-guide.md › Views and aggregates): totals of the rows a filter selects,
 * grouped by up to three columns, computed by one SQL statement (nothing is read into the Worker but the groups).
 */
import { sql, type SQL } from "drizzle-orm";
import { unprocessable, type ErrorDetail } from "../../../errors";
import { checkTableAccess, tableAccessStatement } from "../../../auth/tableAccess";
import { read, type ServiceContext } from "../../context";
import { columnType } from "../cellValues";
import { liveColumnsQuery } from "../columns";
import type { ColumnRow } from "../serialize";
import { compileFilter, type FilterScope } from "./filter";
import { rowValue } from "./sqlParts";

export const MAX_GROUP_BY = 3;
export const MAX_METRICS = 20;
export const MAX_GROUPS = 1000;
const FUNCTIONS = ["sum", "avg", "min", "max", "countEmpty"] as const;

interface Metric {
  name: string;
  sql: SQL;
}

function parseMetrics(text: string, byId: ReadonlyMap<string, ColumnRow>, details: ErrorDetail[]): Metric[] {
  const list = text.split(",").filter((m) => m.length > 0);
  if (list.length === 0 || list.length > MAX_METRICS)
    details.push({ path: "metrics", message: `1 to ${MAX_METRICS} metrics` });
  const out: Metric[] = [];
  list.forEach((m, i) => {
    if (m === "count") return void out.push({ name: m, sql: sql`count(*)` });
    const [fn, columnId] = m.split(":") as [string, string | undefined];
    const column = columnId ? byId.get(columnId) : undefined;
    if (!FUNCTIONS.includes(fn as (typeof FUNCTIONS)[number]) || !column)
      return void details.push({ path: `metrics.${i}`, message: "count, or sum|avg|min|max|countEmpty:{columnId}" });
    if (columnType(column) === "oneMany")
      return void details.push({ path: `metrics.${i}`, message: "relation columns are computed at read time" });
    const v = rowValue(column.id);
    const num = sql`CASE WHEN typeof(${v}) IN ('integer', 'real') THEN ${v} END`;
    const expr: Record<string, SQL> = {
      sum: sql`total(${num})`,
      avg: sql`avg(${num})`,
      min: sql`min(${v})`,
      max: sql`max(${v})`,
      countEmpty: sql`sum(${v} IS NULL)`,
    };
    out.push({ name: m, sql: expr[fn]! });
  });
  return out;
}

export async function aggregateRows(
  ctx: ServiceContext,
  input: { tableId: string; filter?: unknown; groupBy?: string[]; metrics: string },
) {
  const [[tableRow], columnList] = await read(ctx, [
    tableAccessStatement(ctx.db, ctx.user.ref, input.tableId),
    liveColumnsQuery(ctx.db, input.tableId),
  ]);
  const { table } = checkTableAccess(tableRow, "read");
  const byId = new Map(columnList.map((c) => [c.id, c]));
  const details: ErrorDetail[] = [];
  const scope: FilterScope = { columnsById: byId, columns: columnList, now: ctx.now, details, conditions: 0 };
  const where = input.filter === undefined ? null : compileFilter(input.filter, "filter", scope);
  const groupBy = input.groupBy ?? [];
  if (groupBy.length > MAX_GROUP_BY) details.push({ path: "groupBy", message: `at most ${MAX_GROUP_BY} columns` });
  groupBy.forEach((id, i) => {
    const c = byId.get(id);
    if (!c || columnType(c) === "oneMany")
      details.push({ path: `groupBy.${i}`, message: "a stored column of this table" });
  });
  const metrics = parseMetrics(input.metrics, byId, details);
  if (details.length) throw unprocessable(`Invalid aggregate: ${details[0]!.path}: ${details[0]!.message}`, details);
  const groups = groupBy.map((id) => rowValue(id));
  const select = [
    ...groups.map((g, i) => sql`${g} AS ${sql.raw(`g${i}`)}`),
    ...metrics.map((m, i) => sql`${m.sql} AS ${sql.raw(`m${i}`)}`),
  ];
  const statement = sql`SELECT ${sql.join(select, sql`, `)} FROM rows WHERE "rows"."table_id" = ${table.id}
    AND "rows"."is_deleted" = 0${where ? sql` AND ${where}` : sql``}
    ${
      groups.length
        ? sql`GROUP BY ${sql.join(
            groups.map((_, i) => sql.raw(`g${i}`)),
            sql`, `,
          )} ORDER BY ${sql.join(
            groups.map((_, i) => sql.raw(`g${i} IS NULL, g${i}`)),
            sql`, `,
          )}`
        : sql``
    }
    LIMIT ${MAX_GROUPS}`;
  const found = (await ctx.db.all(statement)) as Record<string, unknown>[];
  return found.map((r) => ({
    group: Object.fromEntries(groupBy.map((id, i) => [id, r[`g${i}`] ?? null])),
    metrics: Object.fromEntries(metrics.map((m, i) => [m.name, r[`m${i}`] ?? null])),
  }));
}
