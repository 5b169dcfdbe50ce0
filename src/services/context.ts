/**
 * What every service function receives: `verbEntity(ctx, input)`. No Hono context, no headers — the database of
 * this request (a D1 session), the caller, the clock and the bindings the service needs. Here: the actor and the
 * context. The context is immutable: routing, acting as a caller, another clock each return a NEW context
 * (ctx.on, actingAs, atTime…). It is the services' only view of tenancy (docs/architecture.md "Tenancy"): ids
 * through `ctx.ids`, another organization's shard through `ctx.on(id)`, every shard through `ctx.everyShard()`,
 * records grouped by shard through `ctx.byShard(…)`. The caller itself is principal.ts; a read with the request's
 * authentication folded in is batchedAuth.ts (`read`, re-exported here: services call it with the context).
 */
import type { AuthUser, DatabaseBinding, Db, Env } from "../env";
import { createDb } from "../db/client";
import {
  bindingAt,
  DIRECTORY,
  everyShardDatabase,
  groupByDatabase,
  idIssuer,
  logicalAt,
  whereIs,
  type IdIssuer,
  type Where,
} from "../tenancy";
import { ApiError } from "../errors";
import type { EventInput } from "./events/events";
import type { OwnedClaim } from "./idempotency";
import { Principal } from "./principal";

export { read } from "./batchedAuth";

/**
 * How long after a write's answer its after-response work starts (its events, the fold of what it staged): the
 * database's work for them then does not compete with the answer on its way out. It matters where D1 runs on the
 * Worker's own thread (a local workerd); deployed, it only delays that work by as much.
 */
const AFTER_RESPONSE_MS = 20;

/** Work the answer does not wait for, started AFTER_RESPONSE_MS after it (through waitUntil). */
export function afterResponse(ctx: Pick<ServiceContext, "waitUntil">, work: () => Promise<unknown>): void {
  ctx.waitUntil(scheduler.wait(AFTER_RESPONSE_MS).then(work));
}
export type { IdIssuer };
/**
 * The id issuer of work that has no context at hand (the scheduler's claims, the queue's events, a notice's id
 * derived from what it is about): the same as every context's `ids`.
 */
export const idsWithoutContext: IdIssuer = idIssuer;
// The fence's SQL (a row is served by this database only while its logical shard is active here) and the shard
// placements a request learns beside its token: what of tenancy the services' statements and the authentication
// need, from the module's face.
export {
  reconcileIndex,
  withClaim,
  type DirectoryIndex,
  applyPlacements,
  fenceRefusalOf,
  learnFromFence,
  placementsQuery,
  servedHere,
  servedHereSql,
  writableHereSql,
  type PlacementRow,
} from "../tenancy";

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

/** What one request (or one task of the Worker's) shares among every context derived from its first one. */
interface Session {
  /** The Idempotency-Key the request owns (a keyed POST), learned when its claim is settled. */
  claim?: OwnedClaim;
  /** The context the request's answer came from, when a service moved on from where the route sent it. */
  answeredFrom?: ServiceContext;
}

export interface ServiceContext {
  /** Issues the ids of the records this call creates. */
  readonly ids: IdIssuer;
  /**
   * Drizzle over this context's database (a D1 session: read replicas for reads, the primary for writes): the
   * shard database of the organization it was routed to (ctx.on), looked up through the shard placements each
   * time, so a move learned while the request runs sends its next query to the new database.
   */
  readonly db: Db;
  /** The directory database (docs/scaling.md): users, tokens, notifications; authentication reads it beside `db`. */
  readonly dir: Db;
  /** The binding `db` is on: `DB` until the context is routed to a shard. */
  readonly binding: DatabaseBinding;
  /** The D1 binding of `db`, for work outside a request's counted session (the upkeep, a Durable Object). */
  readonly d1: D1Database;
  /** The logical shard the context was routed by (ctx.on), so a move learned while it runs can send it on. */
  readonly logical: number | undefined;
  /** This request's client of a database, opened on first use. */
  readonly database: (binding: DatabaseBinding) => Db;
  readonly actor: Actor;
  /**
   * Whose rights apply: the user actor, or the owner the system acts for; anonymous for a reader. In a route whose
   * authentication is folded into its first read, `user.id` is known after `read()`.
   */
  readonly user: Principal;
  /** The request's clock, milliseconds since the epoch. */
  readonly now: number;
  /** The client's IP address as the audit log records it (src/http/clientAddress.ts auditAddress); null when unknown. */
  readonly clientAddress: string | null;
  readonly env: Env;
  readonly waitUntil: (promise: Promise<unknown>) => void;
  /** A new organization's id drawn when the request was routed (src/http/route.ts, shard key "new-organization"). */
  readonly placedOrganizationId?: string;
  /** The Idempotency-Key this request owns (a keyed POST), under which a write keeps its answer. */
  readonly idempotencyClaim?: OwnedClaim;
  /**
   * Where the events of this call's writes go when its owner emits them itself (an automation run emits its
   * writes' events once the run is recorded); absent, they are emitted after the response (waitUntil).
   */
  readonly outbox?: EventInput[];
  /** The same request's shared part (its pending authentication, its owned key), one object for every derived context. */
  readonly session: object;
  /** A new context, the same caller, clock and request, on the shard database holding the record `id`. */
  readonly on: (id: string) => ServiceContext;
  /** A new context on each shard database (work about no one organization: registration, a search, the upkeep). */
  readonly everyShard: () => ServiceContext[];
  /** `items` grouped by the shard database each one's id (`idOf`) is on, each group with a new context there. */
  readonly byShard: <T>(items: Iterable<T>, idOf: (item: T) => string) => [ServiceContext, T[]][];
}

/** What a context is made of: what its request shares, and what a derived context may change. */
interface Base {
  env: Env;
  dir: Db;
  database: (binding: DatabaseBinding) => Db;
  waitUntil: (promise: Promise<unknown>) => void;
  session: Session;
  clientAddress: string | null;
}
interface State {
  actor: Actor;
  now: number;
  where: Where;
  placedOrganizationId?: string;
  outbox?: EventInput[];
  /** True: this context keeps no answer under the request's Idempotency-Key (a step that is not the answer). */
  unkeyed?: boolean;
}

const parts = new WeakMap<ServiceContext, { base: Base; state: State }>();

function d1Of(env: Env, binding: DatabaseBinding): D1Database {
  const d1 = binding === "DB" ? env.DB : env[binding];
  if (!d1) throw new ApiError("InternalError", `No D1 binding ${binding}: wrangler.toml and the shard map disagree`);
  return d1;
}

const userOf = (actor: Actor) =>
  actor.type === "reader" ? Principal.anonymous() : (actor.user ?? Principal.anonymous());

function contextOf(base: Base, state: State): ServiceContext {
  const derive = (patch: Partial<State>) => contextOf(base, { ...state, ...patch });
  const ctx: ServiceContext = {
    ids: idIssuer,
    get db() {
      return base.database(bindingAt(state.where));
    },
    dir: base.dir,
    get binding() {
      return bindingAt(state.where);
    },
    get d1() {
      return d1Of(base.env, bindingAt(state.where));
    },
    logical: logicalAt(state.where),
    database: base.database,
    actor: state.actor,
    user: userOf(state.actor),
    now: state.now,
    clientAddress: base.clientAddress,
    env: base.env,
    waitUntil: base.waitUntil,
    ...(state.placedOrganizationId !== undefined && { placedOrganizationId: state.placedOrganizationId }),
    get idempotencyClaim() {
      return state.unkeyed ? undefined : base.session.claim;
    },
    ...(state.outbox && { outbox: state.outbox }),
    session: base.session,
    on: (id) => derive({ where: whereIs(id) }),
    everyShard: () => everyShardDatabase().map((where) => derive({ where })),
    byShard: (items, idOf) => groupByDatabase(items, idOf).map(([where, group]) => [derive({ where }), group]),
  };
  parts.set(ctx, { base, state });
  return Object.freeze(ctx);
}

/** A new context from `ctx` with `patch` (the same request). */
function derived(ctx: ServiceContext, patch: Partial<State>): ServiceContext {
  const made = parts.get(ctx);
  if (!made) throw new ApiError("InternalError", "A service context not made by serviceContext()");
  return contextOf(made.base, { ...made.state, ...patch });
}

/** The automation depth of the writes made by `actor` (0 for a person or a portal reader). */
export function depthOf(actor: Actor): number {
  return actor.type === "system" ? actor.depth : 0;
}

/** The cascade the writes made by `actor` continue (null: a person's write starts a new one). */
export function cascadeOf(actor: Actor): string | null {
  return actor.type === "system" ? (actor.automation?.cascadeId ?? null) : null;
}

/** A service context for `actor`, on the directory database until it is routed (ctx.on); the rights holder (`user`) follows from it. */
export function serviceContext(
  env: Env,
  db: Db,
  actor: Actor,
  opts: {
    waitUntil?: (p: Promise<unknown>) => void;
    now?: number;
    outbox?: EventInput[];
    database?: (binding: DatabaseBinding) => Db;
    clientAddress?: string | null;
  } = {},
): ServiceContext {
  const clients = new Map<DatabaseBinding, Db>([["DB", db]]);
  const database =
    opts.database ??
    ((binding: DatabaseBinding) => {
      let client = clients.get(binding);
      if (!client) {
        client = createDb(d1Of(env, binding));
        clients.set(binding, client);
      }
      return client;
    });
  const base: Base = {
    env,
    dir: db,
    database,
    waitUntil: opts.waitUntil ?? ((p) => void p.catch(() => undefined)),
    session: {},
    clientAddress: opts.clientAddress ?? null,
  };
  return contextOf(base, {
    actor,
    now: opts.now ?? Date.now(),
    where: DIRECTORY,
    ...(opts.outbox && { outbox: opts.outbox }),
  });
}

/**
 * The context of work no request started (a Durable Object: a room's opening and write-back, the formula
 * coordinator; the Worker's upkeep), acting as the system with no user, on the shard database of the record `id`
 * (the directory without one).
 */
export function systemContext(
  env: Env,
  id?: string,
  opts: { waitUntil?: (p: Promise<unknown>) => void } = {},
): ServiceContext {
  const ctx = serviceContext(env, createDb(env.DB), workerActor, opts);
  return id === undefined ? ctx : ctx.on(id);
}

/**
 * The D1 binding of the shard database holding the record `id` (for an id naming no logical shard, the database
 * where no record has it): for work on raw D1 with no context (a Durable Object, a queue consumer, the upkeep).
 */
export function d1Holding(env: Env, id: string): D1Database {
  return d1Of(env, bindingAt(whereIs(id)));
}

/** A new context whose caller is `user` (authentication has named the token; its row may still be pending). */
export function actingAs(ctx: ServiceContext, user: Principal): ServiceContext {
  return derived(ctx, { actor: { type: "user", user } });
}

/** A new context whose clock reads `now` (an automation run's next action). */
export function atTime(ctx: ServiceContext, now: number): ServiceContext {
  return derived(ctx, { now });
}

/** A new context that keeps no answer under the request's Idempotency-Key (a step of a write that is not its answer). */
export function unkeyed(ctx: ServiceContext): ServiceContext {
  return derived(ctx, { unkeyed: true });
}

/** A new context on the shard of the new organization `organizationId` drawn for the request (shard key "new-organization"). */
export function placedOrganization(ctx: ServiceContext, organizationId: string): ServiceContext {
  return derived(ctx, { where: whereIs(organizationId), placedOrganizationId: organizationId });
}

/**
 * The request's answer comes from `ctx`'s database (a service that went on to another shard than the one its route
 * chose: a search in one workspace, a reference found on another shard): the response carries that database's
 * bookmark (src/http/session.ts). Returns `ctx`.
 */
export function answersFrom(ctx: ServiceContext): ServiceContext {
  (ctx.session as Session).answeredFrom = ctx;
  return ctx;
}

/** The database whose bookmark the request's response carries: where its answer came from (answersFrom), else `ctx`'s. */
export function answerBinding(ctx: ServiceContext): DatabaseBinding {
  return ((ctx.session as Session).answeredFrom ?? ctx).binding;
}

/** The request now owns an Idempotency-Key: every context of the request keeps its answer under it. */
export function ownClaim(ctx: ServiceContext, claim: OwnedClaim): void {
  (ctx.session as Session).claim = claim;
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
