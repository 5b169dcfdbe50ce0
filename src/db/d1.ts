import type { Db } from "../env";

/** A Drizzle client or the D1 binding itself (the formula coordinator works on the binding). */
export type DbLike = D1Database | Db;

/**
 * The D1 binding under a Drizzle client (or the binding given), for raw prepared statements in `DB.batch()`:
 * conditional writes and INSERT … SELECT that Drizzle's builders cannot express. drizzle() sets `$client`;
 * the shared Db type omits it.
 */
export function d1Of(db: DbLike): D1Database {
  return "$client" in db ? (db as unknown as { $client: D1Database }).$client : (db as D1Database);
}
