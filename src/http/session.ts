/**
 * D1 through the Sessions API (docs/api-guide.md › HTTP semantics: retries, caching, replicas): reads may be served by a read replica, writes go to the primary, and a
 * client that sends back `x-d1-bookmark` reads data at least as fresh as the response that carried it. Every D1
 * round trip of the request is counted for `x-d1-round-trips` (sequential round trips), and the databases they reached
 * are named in `x-d1-databases`.
 */
import type { MiddlewareHandler } from "hono";
import type { HonoEnv } from "../env";
import { createDb } from "../db/client";
import { countingD1, databasesHeader } from "../db/instrument";

/** D1 bookmarks are opaque, but short and of a known alphabet; anything else is ignored rather than failing the request. */
const BOOKMARK_PATTERN = /^[0-9a-zA-Z-]{1,200}$/;

/**
 * The newest bookmark a session of this isolate has seen. A response that ran no query (a 401 without a token, an
 * unknown path, /health) has no bookmark of its own; it carries this one, a real position of the same database, so
 * every response has `x-d1-bookmark` (docs/api-guide.md › HTTP semantics: retries, caching, replicas) and sending it back never asks for less than the response saw.
 */
let latestSeen: string | undefined;

export const d1Session: MiddlewareHandler<HonoEnv> = async (c, next) => {
  const presented = c.req.header("x-d1-bookmark");
  const bookmark = presented && BOOKMARK_PATTERN.test(presented) ? presented : undefined;
  const writes = c.req.method !== "GET" && c.req.method !== "HEAD";
  const session = c.env.DB.withSession(writes ? "first-primary" : (bookmark ?? "first-unconstrained"));
  const counter = { count: 0, delayMs: Number(c.env.D1_LATENCY_MS ?? 0) || 0 };
  const db = createDb(countingD1(session as unknown as D1Database, counter, "DB"));
  // The directory and the request's database are one database until requests are routed to shards (docs/scaling.md).
  c.set("db", db);
  c.set("dir", db);
  c.set("roundTrips", counter);
  await next();
  await Promise.allSettled(c.get("background") ?? []);
  // A WebSocket upgrade (101) cannot be re-wrapped; it carries no D1 figures.
  if (c.res.status === 101) return;
  const own = session.getBookmark() ?? undefined;
  // Bookmarks sort oldest to newest.
  if (own && (!latestSeen || own > latestSeen)) latestSeen = own;
  const latest = own ?? bookmark ?? latestSeen;
  const stamp = (headers: Headers) => {
    headers.set("x-d1-round-trips", String(counter.count));
    const databases = databasesHeader(counter);
    if (databases) headers.set("x-d1-databases", databases);
    if (latest) headers.set("x-d1-bookmark", latest);
  };
  try {
    // Most responses are built here and their headers are mutable: no copy of the response.
    stamp(c.res.headers);
  } catch {
    // Headers of a response passed through (e.g. from fetch) are immutable: re-wrap it once. Clearing c.res first
    // keeps Hono's setter from copying the old response's headers onto the new one a second time.
    const res = new Response(c.res.body, c.res);
    stamp(res.headers);
    c.res = undefined;
    c.res = res;
  }
};
