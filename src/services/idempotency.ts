/**
 * Idempotency-Key bookkeeping (API.md §17), transport-neutral: claim a (caller, key) for one request, remember its
 * response, release it when the request failed on our side so a retry can run.
 */
import { and, eq, sql } from "drizzle-orm";
import { accessTokens, idempotencyKeys } from "../db/schema";
import type { Db } from "../env";
import { newId } from "../lib/ids";
import type { ServiceContext } from "./context";
import { conflict, unprocessable } from "../errors";

export const IDEMPOTENCY_TTL_MS = 24 * 60 * 60 * 1000;

export interface StoredResponse {
  status: number;
  contentType: string | null;
  body: string | null;
}

/** A (caller, key) record as stored. */
export type IdempotencyRecord = typeof idempotencyKeys.$inferSelect;

export type Claim = { kind: "owned"; claim: string } | { kind: "replay"; response: StoredResponse };

export interface ClaimRequest {
  key: string;
  requestHash: string;
  claim: string;
}

export function newClaim(key: string, requestHash: string): ClaimRequest {
  return { key, requestHash, claim: newId() };
}

/** On a key already held: the claim takes it over only when its record is past its 24 hours. */
function takeOverExpired(req: ClaimRequest, at: number) {
  return {
    target: [idempotencyKeys.userId, idempotencyKeys.key],
    set: { claim: req.claim, requestHash: req.requestHash, status: null, contentType: null, body: null, createdAt: at },
    setWhere: sql`${idempotencyKeys.createdAt} <= ${at - IDEMPOTENCY_TTL_MS}`,
  };
}

/**
 * The two statements that claim a key, for a D1 batch: an insert (taking over a record past its 24 hours) for the
 * token's user, and a read of the record. Written against the token hash, so they can ride in the authentication
 * batch: an unknown token inserts nothing.
 */
export function claimStatements(db: Db, tokenHash: string, req: ClaimRequest, at: number) {
  return [
    db
      .insert(idempotencyKeys)
      .select(
        db
          .select({
            userId: accessTokens.userId,
            key: sql<string>`${req.key}`.as("key"),
            claim: sql<string>`${req.claim}`.as("claim"),
            requestHash: sql<string>`${req.requestHash}`.as("request_hash"),
            status: sql<null>`NULL`.as("status"),
            contentType: sql<null>`NULL`.as("content_type"),
            body: sql<null>`NULL`.as("body"),
            createdAt: sql<number>`${at}`.as("created_at"),
          })
          .from(accessTokens)
          .where(eq(accessTokens.tokenHash, tokenHash)),
      )
      .onConflictDoUpdate(takeOverExpired(req, at)),
    db
      .select()
      .from(idempotencyKeys)
      .where(and(sql`${idempotencyKeys.userId} = (SELECT user_id FROM access_tokens WHERE token_hash = ${tokenHash})`, eq(idempotencyKeys.key, req.key))),
  ] as const;
}

/**
 * The two statements that claim a key for a caller known without a token (the deployment admin, see
 * src/http/admin.ts), for one D1 batch: the insert (taking over a record past its 24 hours) and the read.
 */
export function callerClaimStatements(db: Db, callerId: string, req: ClaimRequest, at: number) {
  return [
    db
      .insert(idempotencyKeys)
      .values({ userId: callerId, key: req.key, claim: req.claim, requestHash: req.requestHash, createdAt: at })
      .onConflictDoUpdate(takeOverExpired(req, at)),
    db.select().from(idempotencyKeys).where(and(eq(idempotencyKeys.userId, callerId), eq(idempotencyKeys.key, req.key))),
  ] as const;
}

/**
 * What the claim's record says: this request owns the key, or the stored response is replayed. The same key held by
 * a running request is 409; a finished one with a different request is 422.
 */
export function settleClaim(req: ClaimRequest, row: IdempotencyRecord | undefined): Claim {
  const { claim, requestHash } = req;
  if (!row) throw conflict("The Idempotency-Key could not be claimed; retry");
  if (row.claim === claim) return { kind: "owned", claim };
  if (row.requestHash !== requestHash) {
    throw unprocessable("This Idempotency-Key was used with a different request (method, path or body)");
  }
  if (row.status === null) throw conflict("A request with this Idempotency-Key is still in progress; retry later");
  return { kind: "replay", response: { status: row.status, contentType: row.contentType, body: row.body } };
}

/** Keeps the response of the request that owns the key; `callerId` defaults to the authenticated user. */
export async function rememberResponse(ctx: ServiceContext, key: string, claim: string, response: StoredResponse, callerId = ctx.user.id) {
  await ctx.db
    .update(idempotencyKeys)
    .set(response)
    .where(and(eq(idempotencyKeys.userId, callerId), eq(idempotencyKeys.key, key), eq(idempotencyKeys.claim, claim)));
}

/**
 * Frees a key this request claimed in its authentication batch when authentication then refused the request (an
 * expired token, the rate limit): the caller is not settled yet, so the user comes from the token row. Without
 * this, a retry with the same key would see "still in progress" for 24 hours.
 */
export async function releaseRefusedClaim(db: Db, userId: string, req: ClaimRequest, record: IdempotencyRecord | undefined) {
  if (record?.claim !== req.claim) return;
  await db.delete(idempotencyKeys).where(and(eq(idempotencyKeys.userId, userId), eq(idempotencyKeys.key, req.key), eq(idempotencyKeys.claim, req.claim)));
}

export async function releaseIdempotencyKey(ctx: ServiceContext, key: string, claim: string, callerId = ctx.user.id) {
  await ctx.db
    .delete(idempotencyKeys)
    .where(and(eq(idempotencyKeys.userId, callerId), eq(idempotencyKeys.key, key), eq(idempotencyKeys.claim, claim)));
}
