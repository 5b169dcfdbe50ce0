/** SQL pieces shared by filters, sorts and aggregates over the cells table (docs/api-guide.md › Querying rows). */
import { sql, type SQL } from "drizzle-orm";
import { ID_PATTERN } from "../../../lib/ids";

/**
 * A cell's stored value as SQL sees it: numbers as numbers, strings as text, booleans as 1/0, arrays and objects
 * as JSON text. The same expression as the `cells_column_value_idx` index (src/db/schema/tables.ts), so
 * comparisons on it are index ranges.
 */
export const VALUE = sql.raw(`json_extract(c.data, '$')`);

/** A column id as an SQL string literal: ids are checked against the id pattern, so they need no binding (D1 binds at most 100 parameters). */
export function colLiteral(id: string): SQL {
  if (!ID_PATTERN.test(id)) throw new Error("not an id");
  return sql.raw(`'${id}'`);
}

export const nonEmptySql = sql`${VALUE} IS NOT NULL AND ${VALUE} <> '' AND ${VALUE} <> '[]'`;

/** `value` for LIKE with `\` as the escape character. */
export function likePattern(value: string): string {
  return value.replace(/[\\%_]/g, (ch) => `\\${ch}`);
}

/**
 * The value of one column of the row `"rows"`, empty values as NULL: a sort key or a group. Read from the
 * `cells_column_row_value_idx` index alone (src/db/schema/tables.ts): SQLite would otherwise pick the unique
 * (row, column) index and read each cell's record, about twice the work per matching row.
 */
export function rowValue(columnId: string, rowRef = `"rows"."id"`): SQL {
  return sql`(SELECT NULLIF(NULLIF(json_extract(c.data, '$'), ''), '[]') FROM cells c INDEXED BY cells_column_row_value_idx
    WHERE c.column_id = ${colLiteral(columnId)} AND c.row_id = ${sql.raw(rowRef)} AND c.is_deleted = 0)`;
}

const DAY = 86_400_000;
const RELATIVE = ["today", "yesterday", "tomorrow", "pastDays", "nextDays"] as const;

/** The UTC day range a relative date names at `now`, or why it names none. */
export function dateRange(value: Record<string, unknown>, now: number): { lo: number; hi: number } | string {
  const { relative, days } = value;
  const extra = Object.keys(value).filter((k) => k !== "relative" && k !== "days");
  if (extra.length || !RELATIVE.includes(relative as (typeof RELATIVE)[number]))
    return `{ relative: ${RELATIVE.join(" | ")}, days? }`;
  const today = Math.floor(now / DAY) * DAY;
  const needsDays = relative === "pastDays" || relative === "nextDays";
  if (needsDays && (typeof days !== "number" || !Number.isInteger(days) || days < 0 || days > 100_000))
    return "days: an integer from 0 to 100000";
  if (!needsDays && days !== undefined) return `days goes with pastDays and nextDays only`;
  const n = needsDays ? (days as number) : 0;
  switch (relative) {
    case "today":
      return { lo: today, hi: today + DAY - 1 };
    case "yesterday":
      return { lo: today - DAY, hi: today - 1 };
    case "tomorrow":
      return { lo: today + DAY, hi: today + 2 * DAY - 1 };
    case "pastDays":
      return { lo: today - n * DAY, hi: today + DAY - 1 };
    default:
      return { lo: today, hi: today + (n + 1) * DAY - 1 };
  }
}
