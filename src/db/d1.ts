import type { Db } from "../env";

/**
 * The D1 binding under a Drizzle client, for raw prepared statements in `DB.batch()` (conditional writes and
 * INSERT … SELECT that Drizzle's builders cannot express). drizzle() sets `$client`; the shared Db type omits it.
 */
export function d1Of(db: Db): D1Database {
  return (db as Db & { $client: D1Database }).$client;
}
