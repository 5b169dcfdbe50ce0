/**
 * Bearer authentication with hashed personal access tokens (docs/api-guide.md › Authentication). One SQL statement finds the token and its
 * user; it either runs on its own (eager routes) or rides in the route's first read batch (docs/api-guide.md › HTTP semantics: retries, caching, replicas), see
 * `read()` in src/services/batchedAuth.ts. The rate limit is spent while the token is looked up.
 */
import { sql } from "drizzle-orm";
import { eq } from "drizzle-orm";
import type { Db, Env } from "../env";
import { ApiError } from "../errors";
import { accessTokens } from "../db/schema";
import { sha256Hex } from "../lib/crypto";
import { rawSelect } from "../db/sql";
import type { Principal, TokenRow } from "../services/principal";
import type { TokenResources } from "../db/schema";
import { requireScope } from "./scopes";
import { limitToResources } from "./tokenLimits";

/** A JSON column read through a raw statement (a string, or null). */
function parseJson<T>(text: string | null | undefined): T | null {
  return text ? (JSON.parse(text) as T) : null;
}

/** Touching lastUsedAt at most once a minute keeps reads from turning into writes on every request. */
export const LAST_USED_GRANULARITY_MS = 60_000;

/** The period of the RATE_LIMITER binding (wrangler.toml): waiting one full period always clears the budget. */
export const RATE_LIMIT_PERIOD_SECONDS = 60;

/** The period of the AUTH_FAILURE_LIMITER binding (wrangler.toml: 60 failed authentications a minute per client address). */
export const AUTH_FAILURE_PERIOD_SECONDS = 60;

/**
 * The shape of a personal access token (docs/api-guide.md › Authentication): `cws_`, the user's id, `_` and 40 base62
 * characters. Anything else cannot be a token (the older form without a user id included), so it is refused
 * without a lookup.
 */
const TOKEN_SHAPE = /^cws_([A-Za-z0-9-]{1,64})_[A-Za-z0-9]{40}$/;

/**
 * Token hashes this isolate has found unknown (or expired) recently: a client repeating one bogus token is refused
 * without a D1 lookup. Bounded; the oldest entries go first. A token cannot become valid after being presented
 * (its secret is random and shown only when issued), so remembering a miss never refuses a good token.
 */
const knownBad = new Map<string, number>();
const KNOWN_BAD_MS = 10 * 60_000;
const KNOWN_BAD_MAX = 10_000;

function rememberBad(hash: string, at: number) {
  knownBad.delete(hash);
  knownBad.set(hash, at + KNOWN_BAD_MS);
  while (knownBad.size > KNOWN_BAD_MAX) knownBad.delete(knownBad.keys().next().value!);
}

function knownBadNow(hash: string, at: number): boolean {
  const until = knownBad.get(hash);
  if (until === undefined) return false;
  if (until > at) return true;
  knownBad.delete(hash);
  return false;
}

/** Who is authenticating: the bindings and the client address (src/http/clientAddress.ts) the failure limit counts by. */
export interface AuthAttempt {
  env: Env;
  address: string;
  /** Whether the token lookup runs on the primary database, so a miss there means the token does not exist. */
  onPrimary?: boolean;
  /** The scope the operation needs of a scoped token (src/auth/scopes.ts; absent: `admin`). */
  scope?: string;
}

/**
 * A failed authentication: counted against the client address (60 a minute), then 429 with Retry-After past the
 * limit, else 401 with `message`.
 */
export async function refuseCredential(attempt: AuthAttempt, message: string): Promise<never> {
  const limiter = attempt.env.AUTH_FAILURE_LIMITER;
  const outcome = limiter ? await limiter.limit({ key: `auth-failure|${attempt.address}` }) : undefined;
  if (outcome && !outcome.success) {
    throw new ApiError(
      "RateLimitedError",
      "Too many failed authentications from this client address; retry after the period in Retry-After",
      {
        retryAfterSeconds: AUTH_FAILURE_PERIOD_SECONDS,
      },
    );
  }
  throw new ApiError("UnauthorizedError", message);
}

export function readBearer(header: string | undefined): string | null {
  if (!header) return null;
  const match = /^Bearer\s+(\S+)\s*$/i.exec(header);
  return match?.[1] ?? null;
}

/** A presented bearer token: its hash, and the user id it names (`cws_<userId>_<secret>`), not yet verified. */
export interface Credential {
  hash: string;
  userId: string;
}

/**
 * The presented bearer token's hash and named user; 401 when there is none. A value that cannot be a token, or
 * one this isolate already found unknown, is a failed authentication decided here, before any D1 lookup.
 */
export async function bearerCredential(
  header: string | undefined,
  attempt: AuthAttempt,
  at = Date.now(),
): Promise<Credential> {
  const token = readBearer(header);
  if (!token) throw new ApiError("UnauthorizedError", "A bearer token is required: Authorization: Bearer <token>");
  const shape = TOKEN_SHAPE.exec(token);
  if (!shape) return refuseCredential(attempt, "The bearer token is unknown or revoked");
  const hash = await sha256Hex(token);
  if (knownBadNow(hash, at)) return refuseCredential(attempt, "The bearer token is unknown or revoked");
  return { hash, userId: shape[1]! };
}

/** The authentication statement: token and user, every member aliased (D1 batches return rows as objects). */
export function tokenStatement(db: Db, tokenHash: string) {
  return rawSelect<TokenRow>(
    db,
    ["tokenId", "expiresAt", "lastUsedAt", "userId", "email", "name", "scopes", "resources"],
    sql`SELECT t.id AS tokenId, t.scopes AS scopes, t.resources AS resources,
      t.expires_at AS expiresAt, t.last_used_at AS lastUsedAt, u.id AS userId, u.email AS email, u.name AS name
    FROM access_tokens t JOIN users u ON u.id = t.user_id WHERE t.token_hash = ${tokenHash} LIMIT 1`,
  );
}

/**
 * The user's request budget, shared by all of the user's tokens (300 a minute): keyed by the user id, so it is
 * spent once the token is known to be valid — a bogus token spends no one's budget (it counts as a failed
 * authentication instead).
 */
export function spendRateLimit(env: Env, userId: string): Promise<{ success: boolean } | undefined> {
  return env.RATE_LIMITER ? env.RATE_LIMITER.limit({ key: `user|${userId}` }) : Promise.resolve(undefined);
}

/**
 * Checks the token row (401 unknown/revoked/expired, counted as a failed authentication of the client address),
 * then the user's rate (429), settles the principal, and returns the lastUsedAt write when it is due (the caller
 * awaits it before answering; it runs beside the rest of the request).
 */
export async function completeAuthentication(
  dir: Db,
  attempt: AuthAttempt,
  principal: Principal,
  rows: TokenRow[],
  at: number,
): Promise<{ touch: Promise<unknown> | null }> {
  const row = rows[0];
  const hash = principal.tokenHash;
  if (!row) {
    if (hash && attempt.onPrimary) rememberBad(hash, at);
    return refuseCredential(attempt, "The bearer token is unknown or revoked");
  }
  // The token's hash covers the user id it names, so a stored token always names its own user; a mismatch would
  // mean a forged row, and is refused like an unknown token.
  if (principal.claimedUserId !== null && principal.claimedUserId !== row.userId) {
    return refuseCredential(attempt, "The bearer token is unknown or revoked");
  }
  if (row.expiresAt !== null && row.expiresAt <= at) {
    if (hash) rememberBad(hash, at);
    return refuseCredential(attempt, "The bearer token has expired");
  }
  const limit = await spendRateLimit(attempt.env, row.userId);
  if (limit && !limit.success) {
    throw new ApiError(
      "RateLimitedError",
      "Too many requests for this user (all of its tokens together); retry after the period in Retry-After",
      {
        retryAfterSeconds: RATE_LIMIT_PERIOD_SECONDS,
      },
    );
  }
  const scopes = parseJson<string[]>(row.scopes);
  principal.settle({
    _id: row.userId,
    email: row.email,
    name: row.name,
    tokenId: row.tokenId,
    tokenExpiresAt: row.expiresAt,
    tokenScopes: scopes,
  });
  // A scoped token's scope is checked with its row, before any result of the batch is used (no extra round trip).
  requireScope(scopes, (attempt.scope ?? "admin") as Parameters<typeof requireScope>[1]);
  limitToResources(parseJson<TokenResources>(row.resources));
  if (row.lastUsedAt === null || at - row.lastUsedAt >= LAST_USED_GRANULARITY_MS) {
    return { touch: dir.update(accessTokens).set({ lastUsedAt: at }).where(eq(accessTokens.id, row.tokenId)).run() };
  }
  return { touch: null };
}
