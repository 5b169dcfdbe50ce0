/**
 * Idempotency-Key bookkeeping (API.md §17), transport-neutral: claim a (caller, key) for one request, remember its
 * response, release it when the request failed on our side so a retry can run.
 */
import { and, eq, sql } from "drizzle-orm";
import { idempotencyKeys } from "../db/schema";
import { newId } from "../lib/ids";
import type { ServiceContext } from "./context";
import { conflict, unprocessable } from "../errors";

export const IDEMPOTENCY_TTL_MS = 24 * 60 * 60 * 1000;

export interface StoredResponse {
  status: number;
  contentType: string | null;
  body: string | null;
}

export type Claim = { kind: "owned"; claim: string } | { kind: "replay"; response: StoredResponse };

/**
 * Claims the key in one round trip: an insert that also takes over a record past its 24 hours, and a read of the
 * record. The same key held by a running request is 409; a finished one with a different request is 422.
 */
export async function claimIdempotencyKey(ctx: ServiceContext, key: string, requestHash: string): Promise<Claim> {
  const claim = newId();
  const userId = ctx.user.id;
  const [, [row]] = await ctx.db.batch([
    ctx.db
      .insert(idempotencyKeys)
      .values({ userId, key, claim, requestHash, createdAt: ctx.now })
      .onConflictDoUpdate({
        target: [idempotencyKeys.userId, idempotencyKeys.key],
        set: { claim, requestHash, status: null, contentType: null, body: null, createdAt: ctx.now },
        setWhere: sql`${idempotencyKeys.createdAt} <= ${ctx.now - IDEMPOTENCY_TTL_MS}`,
      }),
    ctx.db.select().from(idempotencyKeys).where(and(eq(idempotencyKeys.userId, userId), eq(idempotencyKeys.key, key))),
  ]);
  if (!row) throw conflict("The Idempotency-Key could not be claimed; retry");
  if (row.claim === claim) return { kind: "owned", claim };
  if (row.requestHash !== requestHash) {
    throw unprocessable("This Idempotency-Key was used with a different request (method, path or body)");
  }
  if (row.status === null) throw conflict("A request with this Idempotency-Key is still in progress; retry later");
  return { kind: "replay", response: { status: row.status, contentType: row.contentType, body: row.body } };
}

export async function rememberResponse(ctx: ServiceContext, key: string, claim: string, response: StoredResponse) {
  await ctx.db
    .update(idempotencyKeys)
    .set(response)
    .where(and(eq(idempotencyKeys.userId, ctx.user.id), eq(idempotencyKeys.key, key), eq(idempotencyKeys.claim, claim)));
}

export async function releaseIdempotencyKey(ctx: ServiceContext, key: string, claim: string) {
  await ctx.db
    .delete(idempotencyKeys)
    .where(and(eq(idempotencyKeys.userId, ctx.user.id), eq(idempotencyKeys.key, key), eq(idempotencyKeys.claim, claim)));
}
