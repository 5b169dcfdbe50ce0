/**
 * What every service function receives: `verbEntity(ctx, input)`. No Hono context, no headers — the database of
 * this request (a D1 session), the caller, the clock and the bindings the service needs.
 */
import { sql, type SQL } from "drizzle-orm";
import type { BatchItem, BatchResponse } from "drizzle-orm/batch";
import type { AuthUser, DatabaseBinding, Db, Env } from "../env";
import { createDb } from "../db/client";
import { logicalShardOfId, shardBindingForId } from "../db/shardIds";
import { applyPlacements, placementsQuery, servingBindingOf, type PlacementRow } from "../db/placements";
import { shardBindings } from "../db/shards";
import { ApiError } from "../errors";
import type { EventInput } from "./events/events";
import type { OwnedClaim } from "./idempotency";

/**
 * Who a service call acts as (docs/api-guide.md › Automations, published portals, collaborative editing):
 * - `user`: a person calling with a token; their rights decide.
 * - `reader`: a reader of a published portal; no account: the portal entry and its reader token decide.
 * - `system`: the Worker itself. Acting for an automation's owner (`automation` set, `user` the owner, with the
 *   owner's rights as they are now), `depth` runs deep in a cascade; or on its own (a room's write-back: no user).
 * Writes made at a depth emit their events at that depth and in that cascade, so a chain of automations stops.
 */
export type Actor =
  | { type: "user"; user: Principal }
  | { type: "reader" }
  | { type: "system"; user: Principal | null; automation: { id: string; runId: string; cascadeId: string } | null; depth: number };

export interface ServiceContext {
  /** Drizzle over this request's D1 session (read replicas for reads, the primary for writes). */
  db: Db;
  /**
   * The directory database (docs/scaling.md): users, tokens, notifications. `db` is the shard database of the
   * organization the request is about (routeTo), and authentication reads this one beside it.
   */
  dir: Db;
  /** The binding `db` is on: `DB` until the request is routed to a shard. */
  binding: DatabaseBinding;
  /** The logical shard the request was routed by (routeTo), so a move learned while it runs can send it on. */
  logical?: number;
  /** This request's client of a database, opened on first use. */
  database: (binding: DatabaseBinding) => Db;
  actor: Actor;
  /**
   * Whose rights apply: the user actor, or the owner the system acts for; anonymous for a reader. In a route whose
   * authentication is folded into its first read, `user.id` is known after `read()`.
   */
  user: Principal;
  /** The request's clock, milliseconds since the epoch. */
  now: number;
  env: Env;
  waitUntil(promise: Promise<unknown>): void;
  /** A new organization's id drawn when the request was routed (src/http/route.ts, shard key "new-organization"). */
  placedOrganizationId?: string;
  /** The Idempotency-Key this request owns (a keyed POST), under which a write keeps its answer. */
  idempotencyClaim?: OwnedClaim;
  /**
   * Where the events of this call's writes go when its owner emits them itself (an automation run emits its
   * writes' events once the run is recorded); absent, they are emitted after the response (waitUntil).
   */
  outbox?: EventInput[];
}

/** The automation depth of the writes made by `actor` (0 for a person or a portal reader). */
export function depthOf(actor: Actor): number {
  return actor.type === "system" ? actor.depth : 0;
}

/** The cascade the writes made by `actor` continue (null: a person's write starts a new one). */
export function cascadeOf(actor: Actor): string | null {
  return actor.type === "system" ? (actor.automation?.cascadeId ?? null) : null;
}

/** A service context for `actor`; the rights holder (`user`) follows from it. */
export function serviceContext(
  env: Env,
  db: Db,
  actor: Actor,
  opts: { waitUntil?: (p: Promise<unknown>) => void; now?: number; outbox?: EventInput[]; database?: (binding: DatabaseBinding) => Db } = {},
): ServiceContext {
  const clients = new Map<DatabaseBinding, Db>([["DB", db]]);
  const database =
    opts.database ??
    ((binding: DatabaseBinding) => {
      let client = clients.get(binding);
      if (!client) {
        const d1 = binding === "DB" ? env.DB : env[binding];
        if (!d1) throw new ApiError("InternalError", `No D1 binding ${binding}`);
        client = createDb(d1);
        clients.set(binding, client);
      }
      return client;
    });
  return {
    db,
    dir: db,
    binding: "DB",
    database,
    actor,
    user: actor.type === "reader" ? Principal.anonymous() : (actor.user ?? Principal.anonymous()),
    now: opts.now ?? Date.now(),
    env,
    waitUntil: opts.waitUntil ?? ((p) => void p.catch(() => undefined)),
    ...(opts.outbox && { outbox: opts.outbox }),
  };
}

/**
 * Sends the context's queries to the shard database holding `id` (docs/scaling.md: the id's logical shard, through
 * the map); an id that names no logical shard sends them where no record has it (shardBindingForId), so the service
 * finds nothing (404). The directory holds no shard tables.
 */
export function routeTo(ctx: ServiceContext, id: string): ServiceContext {
  const logical = logicalShardOfId(id);
  // An id naming no logical shard is looked for where no record has it (shardBindingForId): 404, as for any absent record.
  if (logical === null) ctx.logical = undefined;
  else ctx.logical = logical;
  const binding = logical === null ? shardBindingForId(id) : servingBindingOf(logical);
  if (binding === ctx.binding) return ctx;
  ctx.binding = binding;
  ctx.db = ctx.database(binding);
  return ctx;
}

/**
 * Applies the directory's newer placements (read beside the token, src/db/placements.ts) and, when the request's
 * logical shard now lives elsewhere, routes the context there; true when it did, so what ran on the old database is
 * run again on the new one. Compared with what the isolate knows now, not only with these rows: another request
 * of the isolate may have learned the move after this one was routed.
 */
export function followPlacements(ctx: ServiceContext, rows: readonly PlacementRow[]): boolean {
  applyPlacements(rows);
  if (ctx.logical === undefined || ctx.binding === "DB") return false;
  const binding = servingBindingOf(ctx.logical);
  if (binding === ctx.binding) return false;
  ctx.binding = binding;
  ctx.db = ctx.database(binding);
  return true;
}

/** The database of the shard holding `id` (shardBindingForId for an id naming no logical shard), for work across shards. */
export function shardDbOf(ctx: ServiceContext, id: string): Db {
  return ctx.database(shardBindingForId(id));
}

/** A copy of `ctx` on the shard holding `id`: the same caller, clock and request, another database. */
export function onShardOf(ctx: ServiceContext, id: string): ServiceContext {
  return onDatabase(ctx, shardBindingForId(id));
}

/** A copy of `ctx` on the database `binding`. */
export function onDatabase(ctx: ServiceContext, binding: DatabaseBinding): ServiceContext {
  return binding === ctx.binding ? ctx : { ...ctx, binding, db: ctx.database(binding) };
}

/**
 * The context of work no request started (a Durable Object: a room's opening and write-back, the formula
 * coordinator), acting as the system with no user, on the shard database of the record `id`.
 */
export function systemContext(env: Env, id: string, opts: { waitUntil?: (p: Promise<unknown>) => void } = {}): ServiceContext {
  return routeTo(serviceContext(env, createDb(env.DB), workerActor, opts), id);
}

/** A copy of `ctx` on every shard database, for work that visits them all (registration, a search across organizations). */
export function everyShardContext(ctx: ServiceContext): ServiceContext[] {
  return shardBindings().map((b) => onDatabase(ctx, b));
}

/** The request's caller becomes `user` (authentication has named the token; its row may still be pending). */
export function actAs(ctx: ServiceContext, user: Principal): void {
  ctx.actor = { type: "user", user };
  ctx.user = user;
}

/** The system acting for an automation's owner, `depth` runs deep in the cascade `cascadeId`. */
export function automationActor(owner: AuthUser, automation: { id: string; runId: string; cascadeId: string }, depth: number): Actor {
  return { type: "system", user: Principal.of(owner), automation, depth };
}

/** The system on its own, for no user (a Durable Object's write-back). */
export const workerActor: Actor = { type: "system", user: null, automation: null, depth: 0 };

/** The row the authentication statement returns (aliased so a D1 batch, which returns objects, keeps every member). */
export interface TokenRow {
  tokenId: string;
  expiresAt: number | null;
  lastUsedAt: number | null;
  userId: string;
  email: string;
  name: string;
}

/**
 * The caller of a request. Known from the start for eagerly authenticated routes; for routes that fold
 * authentication into their first read, `ref` lets that read's statements name the caller before the token row comes
 * back, and `settle` completes it from the same round trip: the user id the token carries (`cws_<userId>_<secret>`,
 * docs/api-guide.md › Authentication), checked against the token's row before any result is used.
 */
export class Principal implements AuthUser {
  private user: AuthUser | null;
  constructor(
    readonly tokenHash: string | null,
    user: AuthUser | null = null,
    /** The user id the presented token names, not yet verified (null when no token was presented). */
    readonly claimedUserId: string | null = null,
  ) {
    this.user = user;
  }

  static of(user: AuthUser) {
    return new Principal(null, user);
  }

  static anonymous() {
    return new Principal(null, null);
  }

  get resolved(): boolean {
    return this.user !== null;
  }

  private get known(): AuthUser {
    if (!this.user) throw new ApiError("InternalError", "The caller was used before authentication completed");
    return this.user;
  }

  get id() {
    return this.known._id;
  }
  get _id() {
    return this.known._id;
  }
  get email() {
    return this.known.email;
  }
  get name() {
    return this.known.name;
  }
  get tokenId() {
    return this.known.tokenId;
  }
  get tokenExpiresAt() {
    return this.known.tokenExpiresAt;
  }

  /**
   * The caller's user id as SQL: a bound value once known or named by the token (results are used only after the
   * token is verified).
   */
  get ref(): SQL {
    if (this.user) return sql`${this.user._id}`;
    if (this.claimedUserId) return sql`${this.claimedUserId}`;
    throw new ApiError("InternalError", "No caller on this request");
  }

  settle(user: AuthUser) {
    this.user = user;
  }
}

/**
 * The per-request pieces that run a read batch with authentication folded in. Set by the route layer
 * (src/http/route.ts); services only call `read()`.
 */
export interface PendingAuthentication {
  /** The token's statement, run on the directory database (`ctx.dir`). */
  token: (dir: Db) => BatchItem<"sqlite">;
  /**
   * On a keyed POST, the Idempotency-Key claim's statements, run on the request's database (`ctx.db`): for the
   * user `userId` (the one the token names, or the one the directory verified), else (null) for the token's user
   * looked up in the same batch, so a token that fails claims nothing.
   */
  claims?: (db: Db, userId: string | null) => readonly BatchItem<"sqlite">[];
  /** Checks the results of the token's and the claim's statements, in that order (throws 401, 429, 409…) before any other result is returned. */
  complete: (results: unknown[]) => Promise<void> | void;
  /** True while `read()` runs the round trips that carry the statements. */
  running?: boolean;
}

const pending = new WeakMap<ServiceContext, PendingAuthentication>();

export function deferAuthentication(ctx: ServiceContext, auth: PendingAuthentication) {
  pending.set(ctx, auth);
}

/**
 * One D1 round trip of latency for `queries`. When the request's authentication is still pending, its statement
 * rides along (docs/api-guide.md › HTTP semantics: retries, caching, replicas: authentication, access check and data
 * in one round trip) and is checked before any result is returned, so data never reaches a caller whose token fails.
 */
export async function read<const T extends readonly [BatchItem<"sqlite">, ...BatchItem<"sqlite">[]]>(ctx: ServiceContext, queries: T): Promise<BatchResponse<T>> {
  const auth = pending.get(ctx);
  if (!auth) return (await ctx.db.batch(queries as unknown as [BatchItem<"sqlite">, ...BatchItem<"sqlite">[]])) as BatchResponse<T>;
  const [, rest] = await runPending(ctx, auth, queries);
  return rest as BatchResponse<T>;
}

/** Completes a pending authentication on its own (a route that turned out to need no read first). */
export async function ensureAuthenticated(ctx: ServiceContext) {
  const auth = pending.get(ctx);
  if (auth) await runPending(ctx, auth, []);
}

type Batch = [BatchItem<"sqlite">, ...BatchItem<"sqlite">[]];

/**
 * The claim results a keyed request on a shard database settles with (docs/scaling.md, "Idempotency-Keys"): the
 * shard's record holds the answer, the directory's registers the key for the user across every database. A key
 * the directory holds for a different request (another endpoint or body, on any database) wins, so its reuse is
 * refused (422) as it is on one database.
 */
function withRegistry(shard: unknown[], directory: unknown[]): unknown[] {
  type Rec = { claim: string; requestHash: string };
  const [insert, records] = shard as [unknown, Rec[] | undefined];
  const mine = records?.[0];
  const registered = (directory[1] as Rec[] | undefined)?.[0];
  if (mine && registered && registered.claim !== mine.claim && registered.requestHash !== mine.requestHash) return [insert, [registered]];
  return shard;
}
const batchOf = async (db: Db, items: BatchItem<"sqlite">[]): Promise<unknown[]> => (items.length ? ((await db.batch(items as Batch)) as unknown[]) : []);

/**
 * The pending statements and `queries`, the pending ones completed before anything returns:
 * - one database (`dir` is `db`): one batch, token and claim first;
 * - a shard database beside the directory: the token's check in the directory and the claim and queries in the
 *   shard at the same time (one round trip of latency), for the user the token names, results discarded unless
 *   the token's row names the same user (docs/scaling.md, "Reads stay one round trip of latency").
 */
async function runPending(ctx: ServiceContext, auth: PendingAuthentication, queries: readonly BatchItem<"sqlite">[]): Promise<[unknown[], unknown[]]> {
  auth.running = true;
  let own: unknown[];
  let rest: unknown[];
  try {
    const token = auth.token(ctx.dir);
    if (ctx.dir === ctx.db) {
      const claims = auth.claims?.(ctx.db, null) ?? [];
      const results = await batchOf(ctx.db, [token, ...claims, ...queries]);
      own = results.slice(0, 1 + claims.length);
      rest = results.slice(1 + claims.length);
    } else {
      if (!ctx.user.claimedUserId) throw new ApiError("InternalError", "A pending authentication names no user");
      // A keyed request claims its key in its own database for the user the token names (a token the directory
      // refuses frees it again, src/http/route.ts), and registers it in the directory beside the token's check.
      const claimedUserId = ctx.user.claimedUserId;
      const claimsOn = (db: Db) => auth.claims?.(db, claimedUserId) ?? [];
      const claims = claimsOn(ctx.db);
      const registry = auth.claims?.(ctx.dir, null) ?? [];
      const [checked, first] = await Promise.all([batchOf(ctx.dir, [token, placementsQuery(ctx.dir), ...registry]), batchOf(ctx.db, [...claims, ...queries])]);
      // The directory says the request's logical shard moved since this isolate routed it: what ran on the old
      // database (which refuses writes of a moved shard, and whose copy may be dropped) runs again on the new one.
      const results = followPlacements(ctx, checked[1] as PlacementRow[]) ? await batchOf(ctx.db, [...claimsOn(ctx.db), ...queries]) : first;
      own = [checked[0], ...withRegistry(results.slice(0, claims.length), checked.slice(2))];
      rest = results.slice(claims.length);
    }
  } finally {
    auth.running = false;
  }
  pending.delete(ctx);
  await auth.complete(own);
  return [own, rest];
}

/**
 * Refuses any D1 round trip of a request whose batched authentication has not completed, except the batch that
 * carries it: a handler that queried before `read()` would otherwise run unauthenticated.
 */
export function guardUntilAuthenticated(ctx: ServiceContext): () => void {
  return () => {
    const auth = pending.get(ctx);
    if (auth && !auth.running) throw new ApiError("InternalError", "A query ran before this request's authentication; read through read() first");
  };
}
