import { createMiddleware } from "hono/factory";
import { eq } from "drizzle-orm";
import type { HonoEnv } from "../env";
import { ApiError } from "../errors";
import { accessTokens, users } from "../db/schema";
import { sha256Hex } from "../lib/crypto";

/** Touching lastUsedAt at most once a minute keeps reads from turning into writes on every request. */
const LAST_USED_GRANULARITY_MS = 60_000;

/** The period of the RATE_LIMITER binding: waiting one full period always clears the budget. */
const RATE_LIMIT_PERIOD_SECONDS = 60;

export function readBearer(header: string | undefined): string | null {
  if (!header) return null;
  const match = /^Bearer\s+(\S+)\s*$/i.exec(header);
  return match?.[1] ?? null;
}

/** Bearer authentication with hashed personal access tokens; sets `user` on the context. */
export const requireUser = createMiddleware<HonoEnv>(async (c, next) => {
  const token = readBearer(c.req.header("authorization"));
  if (!token) throw new ApiError("UnauthorizedError", "A bearer token is required: Authorization: Bearer <token>");
  const hash = await sha256Hex(token);
  const db = c.get("db");
  // The budget is keyed by the token's hash so it can be spent while the token is looked up (one round trip
  // less on every request); unknown tokens spend budgets nobody owns.
  const [[row], rate] = await Promise.all([
    db
      .select({ tokenId: accessTokens.id, expiresAt: accessTokens.expiresAt, lastUsedAt: accessTokens.lastUsedAt, userId: users.id, email: users.email, name: users.name })
      .from(accessTokens)
      .innerJoin(users, eq(users.id, accessTokens.userId))
      .where(eq(accessTokens.tokenHash, hash))
      .limit(1),
    c.env.RATE_LIMITER?.limit({ key: hash }),
  ]);
  const at = Date.now();
  if (!row) throw new ApiError("UnauthorizedError", "The bearer token is unknown or revoked");
  if (row.expiresAt !== null && row.expiresAt <= at) throw new ApiError("UnauthorizedError", "The bearer token has expired");
  if (rate && !rate.success) {
    throw new ApiError("RateLimitedError", "Too many requests for this token; retry after the period in Retry-After", {
      headers: { "Retry-After": String(RATE_LIMIT_PERIOD_SECONDS) },
    });
  }
  if (row.lastUsedAt === null || at - row.lastUsedAt >= LAST_USED_GRANULARITY_MS) {
    await db.update(accessTokens).set({ lastUsedAt: at }).where(eq(accessTokens.id, row.tokenId));
  }
  c.set("user", { _id: row.userId, email: row.email, name: row.name, tokenId: row.tokenId, tokenExpiresAt: row.expiresAt });
  await next();
});
