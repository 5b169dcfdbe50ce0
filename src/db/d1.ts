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

/**
 * A raw statement on `db` (a Drizzle client or the D1 binding) with `params` bound to its `?n` placeholders, for a
 * `DB.batch()`: what Drizzle's builders cannot express (conditional writes, INSERT … SELECT over json_each, FTS5).
 * Services build these in their area's queries.ts; `.prepare()` itself is called only here and in src/tenancy.
 */
export function statement(db: DbLike, query: string, ...params: unknown[]): D1PreparedStatement {
  const prepared = d1Of(db).prepare(query);
  return params.length ? prepared.bind(...params) : prepared;
}
