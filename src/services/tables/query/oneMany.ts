/**
 * Filters on oneMany columns (docs/api-guide.md › Querying rows). A oneMany cell is computed from the column's
 * relation filter, never stored, so the condition is the relation itself in SQL: a live row of the target table
 * whose cells compare with the literal or with the source row's cell, as src/services/tables/relations.ts does
 * in the Worker.
 */
import { sql, type SQL } from "drizzle-orm";
import type { ErrorDetail } from "../../../errors";
import type { OneManyOptions } from "../../../schemas/tables";
import type { ColumnRow } from "../serialize";
import { colLiteral } from "./sqlParts";

interface OneManyCond {
  column: ColumnRow;
  op: string;
  value: unknown;
  path: string;
  scope: { details: ErrorDetail[] };
}

const cellOf = (rowRef: string, columnId: string) =>
  sql`(SELECT json_extract(x.data, '$') FROM cells x WHERE x.row_id = ${sql.raw(rowRef)} AND x.column_id = ${colLiteral(columnId)} AND x.is_deleted = 0)`;

const isScalar = (v: unknown) => typeof v === "string" || typeof v === "number" || typeof v === "boolean";

function itemSql(item: OneManyOptions["filter"][number]): SQL {
  const target = cellOf("t.id", item.targetColumnId);
  if (item.op === "isEmpty") return sql`(${target} IS NULL OR ${target} = '' OR ${target} = '[]')`;
  if (item.op === "isNotEmpty") return sql`(${target} IS NOT NULL AND ${target} <> '' AND ${target} <> '[]')`;
  let operand: SQL;
  if (item.sourceColumnId !== undefined) operand = cellOf(`"rows"."id"`, item.sourceColumnId);
  else if (item.op === "in" && Array.isArray(item.value))
    return sql`${target} IN (SELECT value FROM json_each(${JSON.stringify(item.value)}))`;
  else if (isScalar(item.value))
    operand = typeof item.value === "boolean" ? sql`${item.value ? 1 : 0}` : sql`${item.value}`;
  else return sql`0`;
  switch (item.op) {
    case "eq":
      return sql`(${target} = ${operand})`;
    case "neq":
      return sql`(${operand} IS NOT NULL AND ${target} IS NOT ${operand})`;
    case "lt":
      return sql`(typeof(${target}) = typeof(${operand}) AND ${target} < ${operand})`;
    case "lte":
      return sql`(typeof(${target}) = typeof(${operand}) AND ${target} <= ${operand})`;
    case "gt":
      return sql`(typeof(${target}) = typeof(${operand}) AND ${target} > ${operand})`;
    case "gte":
      return sql`(typeof(${target}) = typeof(${operand}) AND ${target} >= ${operand})`;
    case "contains":
      return sql`(instr(lower(${target}), lower(${operand})) > 0)`;
    default:
      return sql`(${target} = ${operand})`;
  }
}

/** EXISTS a related row (optionally one of `ids`); null when the column relates nothing. */
function relatedExists(column: ColumnRow, ids: string[] | null): SQL | null {
  const opts = (column.data as { oneMany?: OneManyOptions }).oneMany;
  if (!opts || opts.filter.length === 0) return null;
  const items = sql.join(opts.filter.map(itemSql), sql.raw(opts.filterConjunction === "or" ? " OR " : " AND "));
  const only = ids ? sql` AND t.id IN (SELECT value FROM json_each(${JSON.stringify(ids)}))` : sql``;
  return sql`EXISTS (SELECT 1 FROM rows t WHERE t.table_id = ${colLiteral(opts.tableId)} AND t.is_deleted = 0
    AND EXISTS (SELECT 1 FROM tables tt WHERE tt.id = t.table_id AND tt.is_deleted = 0)${only} AND (${items}))`;
}

/** hasAny (nonEmpty null), isNotEmpty (true) or isEmpty (false) on a oneMany column. */
export function oneManyCondition(c: OneManyCond, nonEmpty: boolean | null): SQL | null {
  if (nonEmpty === null) {
    if (!Array.isArray(c.value) || c.value.length === 0 || c.value.some((v) => typeof v !== "string")) {
      if (c.scope.details.length < 50) c.scope.details.push({ path: c.path, message: "an array of row ids" });
      return null;
    }
    return relatedExists(c.column, c.value as string[]) ?? sql`0`;
  }
  const exists = relatedExists(c.column, null);
  if (!exists) return nonEmpty ? sql`0` : sql`1`;
  return nonEmpty ? exists : sql`NOT ${exists}`;
}
