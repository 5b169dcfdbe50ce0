/**
 * The authentication middleware of the routes' auth modes (src/http/route.ts, defineRoute `auth`;
 * docs/api-guide.md › Authentication): "token" checks the bearer token before validation (authenticateNow; on a
 * POST with its Idempotency-Key claim in the same round trip, authenticateIdempotent); "batched" folds the token's
 * statement, and on a POST the key's claim, into the handler's first `read()` batch (authenticateInFirstRead,
 * src/services/batchedAuth.ts).
 */
import type { Context, MiddlewareHandler } from "hono";
import type { Db, HonoEnv } from "../env";
import { bearerCredential, completeAuthentication, tokenStatement, type AuthAttempt } from "../auth/authenticate";
import { clientAddress } from "./clientAddress";
import { actingAs, placementsQuery, type ServiceContext } from "../services/context";
import { Principal, type TokenRow } from "../services/principal";
import {
  deferAuthentication,
  ensureAuthenticated,
  followPlacements,
  guardUntilAuthenticated,
} from "../services/batchedAuth";
import { ctxOf } from "./requestContext";
import {
  IdempotentReplay,
  idempotencyRequest,
  rememberOrRelease,
  runIdempotent,
  settleOwnedClaim,
} from "./idempotency";
import {
  callerClaimStatements,
  claimStatements,
  releaseRefusedClaim,
  type ClaimRequest,
  type IdempotencyRecord,
} from "../services/idempotency";

/** Work started during authentication (the lastUsedAt touch) that the request awaits before answering. */
function track(c: Context<HonoEnv>, work: Promise<unknown> | null | undefined) {
  if (work) c.set("background", [...(c.get("background") ?? []), work]);
}

/** The bindings and client address a request authenticates with (failed attempts are limited per address). */
function attemptOf(c: Context<HonoEnv>): AuthAttempt {
  // Reads may look the token up on a read replica that has not yet seen a token just issued (docs/api-guide.md,
  // "HTTP semantics"): only a miss on the primary is remembered as a bad token.
  const onPrimary = c.req.method !== "GET" && c.req.method !== "HEAD";
  return { env: c.env, address: clientAddress(c.req.raw.headers, c.env), onPrimary, scope: c.get("scope") };
}

export const authenticateNow: MiddlewareHandler<HonoEnv> = async (c, next) => {
  const attempt = attemptOf(c);
  const credential = await bearerCredential(c.req.header("authorization"), attempt);
  const principal = new Principal(credential.hash, null, credential.userId);
  const ctx = actingAs(ctxOf(c), principal);
  c.set("ctx", ctx);
  // The directory's newer shard placements ride with the token (src/tenancy/kernel/placements.ts): the handler, which runs
  // after, reaches the database that serves its shard now.
  const [rows, placed] = await ctx.dir.batch([tokenStatement(ctx.dir, credential.hash), placementsQuery(ctx.dir)]);
  followPlacements(ctx, placed);
  track(c, (await completeAuthentication(ctx.dir, attempt, principal, rows, ctx.now)).touch);
  c.set("user", principal);
  await next();
};

/**
 * The request's Idempotency-Key claim (null without a key). A malformed key is 400 only once the token has been
 * checked: authentication answers first (docs/api-guide.md › Conventions), so a bad token with a bad key is 401.
 */
async function claimAfterAuthenticating(c: Context<HonoEnv>): Promise<ClaimRequest | null> {
  try {
    return await idempotencyRequest(c);
  } catch (err) {
    await authenticateNow(c, async () => undefined);
    throw err;
  }
}

/** Completes authentication of a batch that also claimed a key; a refused request frees the key it claimed. */
async function authenticateClaimed(
  c: Context<HonoEnv>,
  attempt: AuthAttempt,
  principal: Principal,
  rows: TokenRow[],
  claim: ClaimRequest,
  record: IdempotencyRecord | undefined,
) {
  const ctx = ctxOf(c);
  try {
    track(c, (await completeAuthentication(ctx.dir, attempt, principal, rows, ctx.now)).touch);
  } catch (err) {
    // The claim was made for the token's user, or for the user a refused token named: either way it is freed.
    const userId = rows[0]?.userId ?? principal.claimedUserId;
    if (userId) await releaseRefusedClaim(ctx, { userId, request: claim, record });
    throw err;
  }
}

/** The logical shard a claim made in `db` belongs to: the request's, in its shard database; none in the directory. */
const claimShard = (ctx: ServiceContext, db: Db): number | null => (db === ctx.dir ? null : (ctx.logical ?? null));

/** POST: the Idempotency-Key (docs/api-guide.md › HTTP semantics: retries, caching, replicas) is claimed in the same batch as the token statement. */
export const authenticateIdempotent: MiddlewareHandler<HonoEnv> = async (c, next) => {
  const attempt = attemptOf(c);
  const credential = await bearerCredential(c.req.header("authorization"), attempt);
  const claim = await claimAfterAuthenticating(c);
  if (!claim) return authenticateNow(c, next);
  const principal = new Principal(credential.hash, null, credential.userId);
  const ctx = actingAs(ctxOf(c), principal);
  c.set("ctx", ctx);
  let record: IdempotencyRecord | undefined;
  // The token and the claim in one round trip (ensureAuthenticated runs them as read() would, on one database or two).
  deferAuthentication(ctx, {
    token: (dir) => tokenStatement(dir, credential.hash),
    claims: (db, userId) =>
      userId
        ? callerClaimStatements(db, userId, claim, ctx.now, claimShard(ctx, db))
        : claimStatements(db, credential.hash, claim, ctx.now, claimShard(ctx, db)),
    complete: async ([rows, , records]) => {
      record = (records as IdempotencyRecord[] | undefined)?.[0];
      await authenticateClaimed(c, attempt, principal, rows as TokenRow[], claim, record);
    },
  });
  await ensureAuthenticated(ctx);
  c.set("user", principal);
  await runIdempotent(c, next, ctx, claim, record);
};

/**
 * Authentication folded into the handler's first `read()` batch. On a POST (`claims`), the Idempotency-Key claim
 * (docs/api-guide.md › HTTP semantics: retries, caching, replicas) rides in that batch too, so a keyed create costs what an unkeyed one does plus remembering its
 * response; a key that already holds a finished response stops the handler at that batch (only reads have run)
 * and is replayed.
 */
export function authenticateInFirstRead(claims: boolean): MiddlewareHandler<HonoEnv> {
  return async (c, next) => {
    const attempt = attemptOf(c);
    const credential = await bearerCredential(c.req.header("authorization"), attempt);
    const hash = credential.hash;
    const claim = claims ? await claimAfterAuthenticating(c) : null;
    const principal = new Principal(hash, null, credential.userId);
    const ctx = actingAs(ctxOf(c), principal);
    c.set("ctx", ctx);
    c.set("user", principal);
    c.get("roundTrips").guard = guardUntilAuthenticated(ctx);
    let owned = false;
    deferAuthentication(ctx, {
      token: (dir) => tokenStatement(dir, hash),
      ...(claim && {
        claims: (db: Db, userId: string | null) =>
          userId
            ? callerClaimStatements(db, userId, claim, ctx.now, claimShard(ctx, db))
            : claimStatements(db, hash, claim, ctx.now, claimShard(ctx, db)),
      }),
      complete: async ([rows, , records]) => {
        if (!claim)
          return track(
            c,
            (await completeAuthentication(ctx.dir, attempt, principal, rows as TokenRow[], ctx.now)).touch,
          );
        const record = (records as IdempotencyRecord[])[0];
        await authenticateClaimed(c, attempt, principal, rows as TokenRow[], claim, record);
        const settled = await settleOwnedClaim(ctx, claim, record);
        if (settled.kind === "replay") throw new IdempotentReplay(settled.response);
        owned = true;
      },
    });
    await next();
    // A handler that answered without reading (a refused body) still authenticates, and claims, before anything leaves.
    if (!principal.resolved) await ensureAuthenticated(ctx);
    if (claim && owned) await rememberOrRelease(c, ctx, claim);
  };
}
