/**
 * Bearer authentication with hashed personal access tokens (API.md §3). One SQL statement finds the token and its
 * user; it either runs on its own (eager routes) or rides in the route's first read batch (API.md §17), see
 * `read()` in src/services/context.ts. The rate limit is spent while the token is looked up.
 */
import { sql } from "drizzle-orm";
import { eq } from "drizzle-orm";
import type { Db, Env } from "../env";
import { ApiError } from "../errors";
import { accessTokens } from "../db/schema";
import { sha256Hex } from "../lib/crypto";
import { rawSelect } from "../db/sql";
import type { Principal, TokenRow } from "../services/context";

/** Touching lastUsedAt at most once a minute keeps reads from turning into writes on every request. */
export const LAST_USED_GRANULARITY_MS = 60_000;

/** The period of the RATE_LIMITER binding (wrangler.toml): waiting one full period always clears the budget. */
export const RATE_LIMIT_PERIOD_SECONDS = 60;

export function readBearer(header: string | undefined): string | null {
  if (!header) return null;
  const match = /^Bearer\s+(\S+)\s*$/i.exec(header);
  return match?.[1] ?? null;
}

/** The hash of the presented bearer token; 401 when there is none. */
export async function bearerHash(header: string | undefined): Promise<string> {
  const token = readBearer(header);
  if (!token) throw new ApiError("UnauthorizedError", "A bearer token is required: Authorization: Bearer <token>");
  return sha256Hex(token);
}

/** The authentication statement: token and user, every member aliased (D1 batches return rows as objects). */
export function tokenStatement(db: Db, tokenHash: string) {
  return rawSelect<TokenRow>(db, ["tokenId", "expiresAt", "lastUsedAt", "userId", "email", "name"], sql`SELECT t.id AS tokenId,
      t.expires_at AS expiresAt, t.last_used_at AS lastUsedAt, u.id AS userId, u.email AS email, u.name AS name
    FROM access_tokens t JOIN users u ON u.id = t.user_id WHERE t.token_hash = ${tokenHash} LIMIT 1`);
}

/** The per-token budget, keyed by the token's hash so it can be spent before the token is known to be valid. */
export function spendRateLimit(env: Env, tokenHash: string): Promise<{ success: boolean } | undefined> {
  return env.RATE_LIMITER ? env.RATE_LIMITER.limit({ key: tokenHash }) : Promise.resolve(undefined);
}

/**
 * Checks the token row (401 unknown/revoked/expired), then the rate (429), settles the principal, and returns the
 * lastUsedAt write when it is due (the caller awaits it before answering; it runs beside the rest of the request).
 */
export async function completeAuthentication(
  db: Db,
  principal: Principal,
  rows: TokenRow[],
  rate: Promise<{ success: boolean } | undefined>,
  at: number,
): Promise<{ touch: Promise<unknown> | null }> {
  const row = rows[0];
  if (!row) throw new ApiError("UnauthorizedError", "The bearer token is unknown or revoked");
  if (row.expiresAt !== null && row.expiresAt <= at) throw new ApiError("UnauthorizedError", "The bearer token has expired");
  const limit = await rate;
  if (limit && !limit.success) {
    throw new ApiError("RateLimitedError", "Too many requests for this token; retry after the period in Retry-After", {
      retryAfterSeconds: RATE_LIMIT_PERIOD_SECONDS,
    });
  }
  principal.settle({ _id: row.userId, email: row.email, name: row.name, tokenId: row.tokenId, tokenExpiresAt: row.expiresAt });
  if (row.lastUsedAt === null || at - row.lastUsedAt >= LAST_USED_GRANULARITY_MS) {
    return { touch: db.update(accessTokens).set({ lastUsedAt: at }).where(eq(accessTokens.id, row.tokenId)).run() };
  }
  return { touch: null };
}
