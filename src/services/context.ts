/**
 * What every service function receives: `verbEntity(ctx, input)`. No Hono context, no headers — the database of
 * this request (a D1 session), the caller, the clock and the bindings the service needs. Here: the actor and the
 * context, and where the context's queries go (routeTo, onShardOf…). The caller itself is principal.ts; a read with
 * the request's authentication folded in is batchedAuth.ts (`read`, re-exported here: services call it with the
 * context).
 */
import type { AuthUser, DatabaseBinding, Db, Env } from "../env";
import { createDb } from "../db/client";
import {
  idsBeside,
  logicalShardOfId,
  newIdBeside,
  newOrganizationId,
  shardBindingForId,
  shardSuffixBeside,
} from "../tenancy/kernel/ids";
import { servingBindingOf } from "../tenancy/kernel/placements";
import { shardBindings } from "../tenancy/kernel/map";
import { ApiError } from "../errors";
import type { EventInput } from "./events/events";
import type { OwnedClaim } from "./idempotency";
import { Principal } from "./principal";

export { read } from "./batchedAuth";
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
  | {
      type: "system";
      user: Principal | null;
      automation: { id: string; runId: string; cascadeId: string } | null;
      depth: number;
    };

/**
 * How a service issues ids (docs/architecture.md "Ids"): every record is issued beside a record it belongs to (its
 * project, table, document…), so its id names its organization's shard; a service never decides the shard itself.
 */
export interface IdIssuer {
  /** A new id for a record of the same organization as `parentId`. */
  beside(parentId: string): string;
  /** `beside(parentId)` for many records: the shard is decoded once (a bulk insert issues thousands of ids). */
  seriesBeside(parentId: string): () => string;
  /** The two characters that end the ids issued beside `parentId` (for ids built in SQL). */
  suffixBeside(parentId: string): string;
  /** A new organization's id, on the logical shard the placement rule draws. */
  organization(): string;
}

const idIssuer: IdIssuer = {
  beside: newIdBeside,
  seriesBeside: idsBeside,
  suffixBeside: shardSuffixBeside,
  organization: newOrganizationId,
};

export interface ServiceContext {
  /** Issues the ids of the records this call creates. */
  ids: IdIssuer;
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
  opts: {
    waitUntil?: (p: Promise<unknown>) => void;
    now?: number;
    outbox?: EventInput[];
    database?: (binding: DatabaseBinding) => Db;
  } = {},
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
    ids: idIssuer,
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
export function systemContext(
  env: Env,
  id: string,
  opts: { waitUntil?: (p: Promise<unknown>) => void } = {},
): ServiceContext {
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
export function automationActor(
  owner: AuthUser,
  automation: { id: string; runId: string; cascadeId: string },
  depth: number,
): Actor {
  return { type: "system", user: Principal.of(owner), automation, depth };
}

/** The system on its own, for no user (a Durable Object's write-back). */
export const workerActor: Actor = { type: "system", user: null, automation: null, depth: 0 };
