/**
 * How a route is declared: an OpenAPI route definition plus its own
 * settings — who may call it, how its caller is authenticated, how large its body may be — turned into route-level
 * middleware here, so no global middleware keeps per-route knowledge.
 *
 *   const route = defineRoute({ method: "get", path: "/document/{documentId}", operationId: "getDocument",
 *     auth: "batched", tags: ["Documents"], request: {...}, responses: {...} });
 *   app.openapi(route, async (c) => c.json({ data: await getDocument(ctxOf(c), c.req.valid("param")) }, 200));
 *
 * Auth modes:
 * - "token" (default except on POST): the bearer token is checked before validation (one D1 round trip; on a
 *   POST the Idempotency-Key is claimed in it).
 * - "batched" (default on POST): the token's statement rides in the handler's first `read()` batch (single-record
 *   reads: one round trip for authentication, access and data; creates: 2 in all), and on a POST the
 *   Idempotency-Key claim too. The handler must read through `read()` first (any other query before it is refused
 *   with a 500 that tests catch); if it never reads, authentication completes on its own before the response leaves.
 * - "public": no bearer token (health, discovery, signed URLs, the reader site, admin bootstrap).
 */
import { createRoute, type RouteConfig } from "@hono/zod-openapi";
import type { Context, MiddlewareHandler } from "hono";
import { bodyLimit } from "hono/body-limit";
import type { HonoEnv } from "../env";
import { ApiError } from "../errors";
import { authErrorResponses, onlyErrorResponses } from "./errors";
import { readBearer } from "../auth/authenticate";
import { placedOrganization, type ServiceContext } from "../services/context";
import { ctxOf } from "./requestContext";
import { authenticateIdempotent, authenticateInFirstRead, authenticateNow } from "./routeAuth";
import { scopeOf } from "../auth/scopes";
import { withTokenLimits } from "../auth/tokenLimits";

export { ctxOf } from "./requestContext";

export const MiB = 1024 * 1024;
/** JSON bodies are capped (docs/api-guide.md › Limits); raw uploads enforce their own limits with 411/413 in their services. */
export const DEFAULT_JSON_LIMIT = 10 * MiB;

export type AuthMode = "token" | "batched" | "public";

export interface RouteSettings {
  /** Unique camelCase verb + noun, e.g. `getTableReference` (docs/api-guide.md › Discovery). */
  operationId: string;
  auth?: AuthMode;
  /** Largest JSON body in bytes (default 10 MiB). */
  bodyLimit?: number;
  /**
   * Most D1 round trips a call may cost (docs/api-guide.md › HTTP semantics: retries, caching, replicas; plus 1 when the token's lastUsedAt is due). Default: 1 for a
   * read whose authentication rides in its batch, 2 for other reads, 3 for writes. Published in the OpenAPI
   * document as `x-d1-round-trips`, and asserted for every operation by test/shared/round-trips.test.ts.
   */
  roundTrips?: number;
  /** Extra route-level middleware, run after authentication and before validation. */
  use?: MiddlewareHandler<HonoEnv>[];
  /**
   * A write other than a POST that claims its Idempotency-Key as every POST does (the bulk row PATCHes of
   * docs/api-guide.md › Bulk writes, which keep their answer in their write's batch).
   */
  keyed?: boolean;
  /**
   * Which database the request's queries go to (docs/scaling.md, "Routing with no lookup"): the shard holding the id
   * in a path parameter (the default: the first one), a JSON body field (a dotted path, or several: the first one
   * present) or a query parameter; `"directory"` for
   * what is global (tokens, notifications, the caller and its organizations); `"service"` when the service routes itself (a search
   * across organizations, an id the client chose); `"new-organization"` for a create that places a new organization
   * (its id drawn here, `ctx.placedOrganizationId`). Decided before authentication, so the token's check in the
   * directory and the first read in the shard run at the same time.
   */
  shard?: ShardKey;
}

export type ShardKey =
  | { param: string }
  | { body: string | readonly string[] }
  | { query: string }
  | "directory"
  | "service"
  | "new-organization";

/** The shard key of a route: declared, else its first path parameter; a route with neither must declare one. */
function shardKeyOf(path: string, declared: ShardKey | undefined): ShardKey {
  if (declared) return declared;
  const first = /\{([^}]+)\}/.exec(path)?.[1];
  if (!first) throw new Error(`${path}: a route without a path parameter declares its shard key (RouteSettings.shard)`);
  return { param: first };
}

/**
 * A new organization's id. With an Idempotency-Key its logical shard follows from the caller and the key (a retry,
 * with any of the caller's tokens, lands where the first attempt claimed the key and kept its answer); without
 * one, the placement rule's draw. The caller is the user a token names, else (a token of the older form) the token.
 */
async function placedOrganizationId(c: Context<HonoEnv>, ctx: ServiceContext): Promise<string> {
  const key = c.req.header("idempotency-key");
  if (!key) return ctx.ids.organization();
  const bearer = readBearer(c.req.header("authorization")) ?? "";
  const caller = /^cws_([A-Za-z0-9-]{1,64})_[A-Za-z0-9]{40}$/.exec(bearer)?.[1] ?? bearer;
  const digest = new Uint32Array(
    await crypto.subtle.digest("SHA-256", new TextEncoder().encode(`${caller}\n${key}`)),
    0,
    1,
  );
  return ctx.ids.organizationDrawn(digest[0]! / 2 ** 32);
}

/** Sends the request's context to the shard its key names (a missing or malformed key: where no record is, so 404 or 400 follow). */
/** The first string found at one of `paths` (dotted: `scope.projectId`) in a JSON body. */
function bodyShardKey(body: unknown, paths: string | readonly string[]): unknown {
  for (const path of typeof paths === "string" ? [paths] : paths) {
    let at: unknown = body;
    for (const part of path.split("."))
      at = at && typeof at === "object" ? (at as Record<string, unknown>)[part] : undefined;
    if (typeof at === "string") return at;
  }
  return undefined;
}

function routeBy(key: ShardKey): MiddlewareHandler<HonoEnv> | null {
  if (key === "directory" || key === "service") return null;
  if (key === "new-organization") {
    // The new organization is placed before authentication, so its Idempotency-Key claim and its rows share a
    // database and a keyed create keeps its answer in the batch that creates it.
    return async (c, next) => {
      const ctx = ctxOf(c);
      c.set("ctx", placedOrganization(ctx, await placedOrganizationId(c, ctx)));
      await next();
    };
  }
  return async (c, next) => {
    let id: unknown;
    if ("param" in key) id = c.req.param(key.param);
    else if ("query" in key) id = c.req.query(key.query);
    else if (/json/i.test(c.req.header("content-type") ?? ""))
      id = bodyShardKey((await c.req.json().catch(() => null)) as unknown, key.body);
    // A missing key names no shard either: ctx.on sends it where no record is found.
    c.set("ctx", ctxOf(c).on(typeof id === "string" ? id : ""));
    await next();
  };
}

type Defined<R> = R & { operationId: string; middleware: MiddlewareHandler<HonoEnv>[]; getRoutingPath(): string };

const bearerSecurity = [{ bearer: [] as string[] }];

/**
 * OpenAPI paths of routes that take a user's bearer token: a wrong method on one of them still authenticates first
 * (401 before 405). Every other known path (public routes, discovery, the reader site) answers 405 without a token.
 */
export const authenticatedPaths = new Set<string>();

export function defineRoute<P extends string, R extends Omit<RouteConfig, "path" | "middleware"> & { path: P }>(
  config: R & RouteSettings,
): Defined<R> {
  const {
    auth = config.method === "post" ? "batched" : "token",
    bodyLimit: limit = DEFAULT_JSON_LIMIT,
    use = [],
    roundTrips,
    shard,
    keyed = config.method === "post",
    ...route
  } = config;
  const budget = roundTrips ?? (route.method === "get" ? (auth === "batched" ? 1 : 2) : 3);
  if (auth !== "public") authenticatedPaths.add(route.path);
  const scope = scopeOf(route.operationId);
  const middleware: MiddlewareHandler<HonoEnv>[] = [
    // The scope a scoped token needs, and room for its resource limits, for the rest of the request.
    (c, next) => {
      c.set("scope", scope);
      return withTokenLimits(next);
    },
    jsonBodyLimit(limit),
  ];
  // A public route without a path parameter (health, discovery, the admin bootstrap) is about no organization.
  const shardKey =
    auth === "public" && !shard && !route.path.includes("{") ? "directory" : shardKeyOf(route.path, shard);
  const router = routeBy(shardKey);
  if (router) middleware.push(router);
  if (auth === "token") middleware.push(keyed ? authenticateIdempotent : authenticateNow);
  if (auth === "batched") middleware.push(authenticateInFirstRead(keyed));
  middleware.push(...use);
  return createRoute({
    ...route,
    responses: { ...centralResponses(route, auth, shardKey, keyed), ...route.responses },
    // Documentation only: src/http/idempotency.ts checks the header (400) before any validation runs.
    ...(claimsIdempotencyKey(route, auth, keyed)
      ? { parameters: [IDEMPOTENCY_KEY_PARAMETER, ...((route as { parameters?: unknown[] }).parameters ?? [])] }
      : {}),
    security: route.security ?? (auth === "public" ? [] : bearerSecurity),
    "x-d1-round-trips": budget,
    // Which database the operation's queries go to (RouteSettings.shard), checked against its parameters by test/shared/shard-routing.test.ts.
    "x-shard-key":
      typeof shardKey === "string" ? shardKey : Object.entries(shardKey).map(([where, name]) => `${where}:${name}`)[0],
    middleware,
  } as unknown as RouteConfig) as unknown as Defined<R>;
}

/** A POST (or a `keyed` write) with a bearer credential (a user's token, or the admin token of src/http/admin.ts) claims its Idempotency-Key. */
function claimsIdempotencyKey(route: Omit<RouteConfig, "middleware">, auth: AuthMode, keyed: boolean) {
  return keyed && (auth !== "public" || (route.security?.length ?? 0) > 0);
}

const IDEMPOTENCY_KEY_PARAMETER = {
  name: "Idempotency-Key",
  in: "header",
  required: false,
  description:
    "Makes a retry safe: the first answer is kept for 24 hours and replayed to a repeat of the same request with the same key; " +
    "the key reused with a different request is 422, while its first request still runs 409.",
  schema: { type: "string", minLength: 1, maxLength: 255, pattern: "^[\\x20-\\x7E]+$" },
};

/**
 * The error statuses a route answers because of how it is declared rather than what it does, so the document lists
 * them on every operation they apply to (a route's own entry for the same status, with its own wording, wins):
 * - authenticated: 401 and 429 (with Retry-After);
 * - a POST with a bearer credential (a user's token, or the admin token of src/http/admin.ts), which claims its
 *   Idempotency-Key (docs/api-guide.md): 400 for a malformed key, 409 while the key's first
 *   request is in progress, 422 for a key reused with a different request;
 * - a write to a shard database: 503 with Retry-After while its logical shard moves;
 * - a JSON body: 400 (not JSON, or not the schema), 413 over the route's body limit, 415 without
 *   Content-Type: application/json.
 * Whether a path or query parameter can fail its schema (400) is the route's own to say: some accept anything.
 */
function centralResponses(
  route: Omit<RouteConfig, "middleware">,
  auth: AuthMode,
  shardKey: ShardKey,
  keyed: boolean,
): RouteConfig["responses"] {
  const request = route.request;
  const jsonBody = request?.body?.content && "application/json" in request.body.content;
  // A write to a shard database is refused while its logical shard moves to another database (503 with
  // Retry-After, docs/scaling.md "Moving a logical shard").
  const fenced = route.method !== "get" && shardKey !== "directory";
  return {
    ...(fenced ? onlyErrorResponses("ServiceUnavailableError") : {}),
    ...(jsonBody ? onlyErrorResponses("ValidationError", "PayloadTooLargeError", "UnsupportedMediaTypeError") : {}),
    ...(claimsIdempotencyKey(route, auth, keyed)
      ? onlyErrorResponses("ValidationError", "ConflictError", "UnprocessableEntityError")
      : {}),
    ...(auth !== "public" ? authErrorResponses() : {}),
  };
}

function jsonBodyLimit(maxSize: number): MiddlewareHandler<HonoEnv> {
  const limiter = bodyLimit({
    maxSize,
    onError: () => {
      throw new ApiError(
        "PayloadTooLargeError",
        `JSON bodies on this route are limited to ${Math.round(maxSize / MiB)} MiB`,
      );
    },
  });
  return async (c, next) => {
    if (!/json/i.test(c.req.header("content-type") ?? "")) return next();
    return limiter(c, next);
  };
}
