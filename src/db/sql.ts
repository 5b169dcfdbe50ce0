import { getTableColumns, SQL, sql } from "drizzle-orm";
import type { SQLiteColumn, SQLiteTable } from "drizzle-orm/sqlite-core";
import type { Db } from "../env";

/**
 * `column IN (values)` through one JSON parameter. D1 allows at most 100 bound parameters per statement,
 * so `inArray` breaks on long lists; json_each takes any number of values in a single binding.
 */
export function inJson(column: SQLiteColumn | SQL, values: readonly string[]): SQL {
  return sql`${column} IN (SELECT value FROM json_each(${JSON.stringify(values)}))`;
}

/**
 * A hand-written SELECT (recursive CTEs, aliased joins) as a Drizzle select, so it can ride in `db.batch()`:
 * Drizzle's raw `db.all(sql)` cannot be batched with parameters. Every listed column must be named in `query`'s
 * output; rows come back as objects with exactly those members.
 */
export function rawSelect<T extends object>(
  db: { select: Db["select"] },
  columns: readonly (keyof T & string)[],
  query: SQL,
) {
  const fields = Object.fromEntries(columns.map((c) => [c, sql.raw(`"raw"."${c}"`)])) as { [K in keyof T]: SQL<T[K]> };
  return db.select(fields).from(sql`(${query}) AS raw`);
}

/**
 * The `updatedAt` a write sets: now, but always past the value it replaces, so an If-Match compare-and-set on
 * `updatedAt` never mistakes a write in the same millisecond for no write at all.
 */
export function nextUpdatedAt(column: SQLiteColumn, at: number): SQL<number> {
  return sql<number>`MAX(${at}, ${column} + 1)`;
}

/**
 * `INSERT INTO table SELECT <row> WHERE condition`: one complete row (every column given), inserted only when
 * `condition` holds when the statement runs. A create under a parent names the parent's liveness here, so a delete
 * of the parent either runs first (nothing inserted) or finds the new row in the subtree it deletes: D1 runs
 * statements one at a time, and a check in an earlier read would leave the gap between the two.
 */
export function insertWhere<T extends SQLiteTable>(db: Db, table: T, row: T["$inferInsert"], condition: SQL) {
  const values = Object.entries(getTableColumns(table)).map(([key, column]) => {
    let value = (row as Record<string, unknown>)[key];
    // A column left out takes its plain default, as a VALUES insert would; SQL defaults must be given.
    if (value === undefined && column.hasDefault && column.default !== undefined && !(column.default instanceof SQL))
      value = column.default;
    if (value === undefined && column.notNull) throw new Error(`insertWhere: ${key} is required`);
    return value === undefined || value === null ? sql`NULL` : sql`${column.mapToDriverValue(value)}`;
  });
  return db.insert(table).select(sql`SELECT ${sql.join(values, sql`, `)} WHERE ${condition}`);
}
