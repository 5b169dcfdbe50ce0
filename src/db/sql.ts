import { sql, type SQL } from "drizzle-orm";
import type { SQLiteColumn } from "drizzle-orm/sqlite-core";
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
export function rawSelect<T extends object>(db: { select: Db["select"] }, columns: readonly (keyof T & string)[], query: SQL) {
  const fields = Object.fromEntries(columns.map((c) => [c, sql.raw(`"raw"."${c}"`)])) as { [K in keyof T]: SQL<T[K]> };
  return db.select(fields).from(sql`(${query}) AS raw`);
}
