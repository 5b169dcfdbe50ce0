/**
 * D1 through the Sessions API (docs/api-guide.md › HTTP semantics: retries, caching, replicas): reads may be served by a read replica, writes go to the primary, and a
 * client that sends back `x-d1-bookmark` reads data at least as fresh as the response that carried it. Every D1
 * round trip of the request is counted for `x-d1-round-trips` (sequential round trips), and the databases they reached
 * are named in `x-d1-databases`.
 */
import type { MiddlewareHandler } from "hono";
import type { DatabaseBinding, Db, HonoEnv } from "../env";
import { ApiError } from "../errors";
import { createDb } from "../db/client";
import { countingD1, databasesHeader } from "../db/instrument";
import { answerBinding } from "../services/context";

/** D1 bookmarks are opaque, but short and of a known alphabet; anything else is ignored rather than failing the request. */
const BOOKMARK_PATTERN = /^[0-9a-zA-Z-]{1,200}$/;

/**
 * The newest bookmark a session of this isolate has seen. A response that ran no query (a 401 without a token, an
 * unknown path, /health) has no bookmark of its own; it carries this one, a real position of the same database, so
 * every response has `x-d1-bookmark` (docs/api-guide.md › HTTP semantics: retries, caching, replicas) and sending it back never asks for less than the response saw.
 */
let latestSeen: string | undefined;

/** A binding's short tag in a bookmark: `d` for the directory, `s<k>` for SHARD_k. */
const tagOf = (binding: string) => (binding === "DB" ? "d" : `s${binding.slice("SHARD_".length)}`);

/**
 * `x-d1-bookmark` names the database it is a position of: `<tag>-<D1 bookmark>` (tagOf). A bookmark without a tag
 * (from before the service had shard databases) is the directory's.
 */
function parseBookmark(value: string | undefined): { binding: string; bookmark: string } | undefined {
  if (!value || !BOOKMARK_PATTERN.test(value)) return undefined;
  const tagged = /^(d|s\d{1,4})-(.+)$/.exec(value);
  if (!tagged) return { binding: "DB", bookmark: value };
  return { binding: tagged[1] === "d" ? "DB" : `SHARD_${tagged[1]!.slice(1)}`, bookmark: tagged[2]! };
}

export const d1Session: MiddlewareHandler<HonoEnv> = async (c, next) => {
  const presented = parseBookmark(c.req.header("x-d1-bookmark"));
  const writes = c.req.method !== "GET" && c.req.method !== "HEAD";
  const counter = { count: 0, delayMs: Number(c.env.D1_LATENCY_MS ?? 0) || 0 };
  const sessions = new Map<string, D1DatabaseSession>();
  const clients = new Map<string, Db>();
  // Each database the request reaches gets its own session, opened on first use (a read of a shard honours a
  // bookmark of that shard).
  const database = (binding: DatabaseBinding): Db => {
    const open = clients.get(binding);
    if (open) return open;
    const d1 = binding === "DB" ? c.env.DB : c.env[binding];
    if (!d1) throw new ApiError("InternalError", `No D1 binding ${binding}: wrangler.toml and SHARD_MAP disagree`);
    const bookmark = presented?.binding === binding ? presented.bookmark : undefined;
    const session = d1.withSession(writes ? "first-primary" : (bookmark ?? "first-unconstrained"));
    sessions.set(binding, session);
    const client = createDb(countingD1(session as unknown as D1Database, counter, binding));
    clients.set(binding, client);
    return client;
  };
  const dir = database("DB");
  c.set("database", database);
  c.set("db", dir);
  c.set("dir", dir);
  c.set("roundTrips", counter);
  await next();
  await Promise.allSettled(c.get("background") ?? []);
  // A WebSocket upgrade (101) cannot be re-wrapped; it carries no D1 figures.
  if (c.res.status === 101) return;
  // The bookmark of the request's own database: its shard once routed, else the directory.
  const ctx = c.get("ctx");
  const binding = ctx ? answerBinding(ctx) : "DB";
  const own = sessions.get(binding)?.getBookmark() ?? undefined;
  const tagged = own ? `${tagOf(binding)}-${own}` : undefined;
  // Bookmarks sort oldest to newest within one database.
  if (binding === "DB" && own && (!latestSeen || own > latestSeen)) latestSeen = own;
  const latest = tagged ?? c.req.header("x-d1-bookmark") ?? (latestSeen && `d-${latestSeen}`);
  const stamp = (headers: Headers) => {
    headers.set("x-d1-round-trips", String(counter.count));
    const databases = databasesHeader(counter);
    if (databases) headers.set("x-d1-databases", databases);
    if (latest && BOOKMARK_PATTERN.test(latest)) headers.set("x-d1-bookmark", latest);
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
