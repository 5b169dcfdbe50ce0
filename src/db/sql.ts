import { sql, type SQL } from "drizzle-orm";
import type { SQLiteColumn } from "drizzle-orm/sqlite-core";

/**
 * `column IN (values)` through one JSON parameter. D1 allows at most 100 bound parameters per statement,
 * so `inArray` breaks on long lists; json_each takes any number of values in a single binding.
 */
export function inJson(column: SQLiteColumn | SQL, values: readonly string[]): SQL {
  return sql`${column} IN (SELECT value FROM json_each(${JSON.stringify(values)}))`;
}
