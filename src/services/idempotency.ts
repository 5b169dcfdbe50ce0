/**
 * Idempotency-Key bookkeeping (docs/api-guide.md, "HTTP semantics"), transport-neutral: claim a (caller, key) for
 * one request, remember its response, release it when the request failed on our side so a retry can run.
 *
 * Crash safety: a claim is a lease. A claim with no response yet is taken over by a retry once it is older than
 * IDEMPOTENCY_LEASE_MS (longer than any request may run), so a request that died never strands its key. A create
 * that keeps its answer (`keptAnswerStatements`) writes that answer in the same D1 batch as its data, so a crash
 * after the write leaves the answer behind for the retry instead of an empty claim the retry would run again.
 *
 * Kept bodies are sealed at rest (lib/crypto sealSecret, bound to the caller and key): a kept token or webhook
 * secret is no more readable in the table than the secrets themselves.
 */
import { statement } from "../db/d1";
import { and, eq, isNull, sql, type SQL } from "drizzle-orm";
import { accessTokens, idempotencyKeys } from "../db/schema";
import type { DatabaseBinding, Db, Env } from "../env";
import { newId } from "../lib/ids";
import { openSecret, sealSecret } from "../lib/crypto";
import type { ServiceContext } from "./context";
import { conflict, unprocessable } from "../errors";

export const IDEMPOTENCY_TTL_MS = 24 * 60 * 60 * 1000;
/** A claim whose request has not answered within this long is taken over by a retry (no request runs this long). */
export const IDEMPOTENCY_LEASE_MS = 60 * 1000;

/** The key a request owns once its claim is settled: what `keptAnswerStatements` writes under. */
export interface OwnedClaim {
  callerId: string;
  key: string;
  claim: string;
  /**
   * The database holding the claim: the request's database when it was authenticated (its shard, or the directory
   * for a route that routes itself). A write on that database keeps its answer in its own batch; a write elsewhere
   * (a service that routed itself after the claim) leaves the answer to be kept when the request completes.
   */
  binding: DatabaseBinding;
}

/** The database of the request's claim (the request's own database before it claimed one). */
const claimDb = (ctx: ServiceContext) => ctx.database(ctx.idempotencyClaim?.binding ?? ctx.binding);

/** Whether a write on the context's database can keep the answer in its own batch. */
const keepsHere = (ctx: ServiceContext, owned: OwnedClaim) => owned.binding === ctx.binding;

const sealContext = (callerId: string, key: string) => `idempotency\n${callerId}\n${key}`;

/** A response body as kept at rest: sealed for (caller, key). */
function sealBody(env: Env, callerId: string, key: string, body: string): Promise<string> {
  return sealSecret(env.SIGNING_SECRET, body, sealContext(callerId, key));
}

/** A kept response with its body opened again for replay. */
export async function openStoredResponse(
  ctx: ServiceContext,
  input: { record: IdempotencyRecord; response: StoredResponse },
): Promise<StoredResponse> {
  const { record, response } = input;
  if (response.body === null) return response;
  return {
    ...response,
    body: await openSecret(ctx.env.SIGNING_SECRET, response.body, sealContext(record.userId, record.key)),
  };
}

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

/**
 * On a key already held: the claim takes it over when its record is past its 24 hours, or when it is a claim with
 * no response whose lease has run out (its request died: a crash, an evicted isolate).
 */
function takeOverExpired(req: ClaimRequest, at: number, logicalShard: number | null) {
  return {
    target: [idempotencyKeys.userId, idempotencyKeys.key],
    set: {
      claim: req.claim,
      requestHash: req.requestHash,
      status: null,
      contentType: null,
      body: null,
      createdAt: at,
      logicalShard,
    },
    setWhere: sql`${idempotencyKeys.createdAt} <= ${at - IDEMPOTENCY_TTL_MS} OR (${idempotencyKeys.status} IS NULL AND ${idempotencyKeys.createdAt} <= ${at - IDEMPOTENCY_LEASE_MS})`,
  };
}

/**
 * The two statements that claim a key, for a D1 batch: an insert (taking over a record past its 24 hours) for the
 * token's user, and a read of the record. Written against the token hash, so they can ride in the authentication
 * batch: an unknown token inserts nothing. `logicalShard` is the request's logical shard in a shard database (the
 * claim moves with it, docs/scaling.md "Idempotency-Keys"), null in the directory.
 */
export function claimStatements(db: Db, tokenHash: string, req: ClaimRequest, at: number, logicalShard: number | null) {
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
            logicalShard: sql<number | null>`${logicalShard}`.as("logical_shard"),
          })
          .from(accessTokens)
          .where(eq(accessTokens.tokenHash, tokenHash)),
      )
      .onConflictDoUpdate(takeOverExpired(req, at, logicalShard)),
    db
      .select()
      .from(idempotencyKeys)
      .where(
        and(
          sql`${idempotencyKeys.userId} = (SELECT user_id FROM access_tokens WHERE token_hash = ${tokenHash})`,
          eq(idempotencyKeys.key, req.key),
        ),
      ),
  ] as const;
}

/**
 * The two statements that claim a key for a caller known without a token (the deployment admin, see
 * src/http/admin.ts), for one D1 batch: the insert (taking over a record past its 24 hours) and the read;
 * `logicalShard` as for claimStatements.
 */
export function callerClaimStatements(
  db: Db,
  callerId: string,
  req: ClaimRequest,
  at: number,
  logicalShard: number | null,
) {
  return [
    db
      .insert(idempotencyKeys)
      .values({
        userId: callerId,
        key: req.key,
        claim: req.claim,
        requestHash: req.requestHash,
        createdAt: at,
        logicalShard,
      })
      .onConflictDoUpdate(takeOverExpired(req, at, logicalShard)),
    db
      .select()
      .from(idempotencyKeys)
      .where(and(eq(idempotencyKeys.userId, callerId), eq(idempotencyKeys.key, req.key))),
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

/** Keeps the response (sealed) of the request that owns the key; `callerId` defaults to the authenticated user. */
export async function rememberResponse(
  ctx: ServiceContext,
  input: { key: string; claim: string; response: StoredResponse; callerId?: string },
) {
  const { key, claim, response, callerId = ctx.user.id } = input;
  const body = response.body === null ? null : await sealBody(ctx.env, callerId, key, response.body);
  const where = and(
    eq(idempotencyKeys.userId, callerId),
    eq(idempotencyKeys.key, key),
    eq(idempotencyKeys.claim, claim),
  );
  await Promise.all([
    claimDb(ctx)
      .update(idempotencyKeys)
      .set({ ...response, body })
      .where(where),
    // The directory's registration of a key claimed in a shard: finished, so it is never taken over as abandoned.
    ...(registeredInDirectory(ctx)
      ? [ctx.dir.update(idempotencyKeys).set({ status: response.status }).where(where)]
      : []),
  ]);
}

/** Whether the request's claim lives in a shard database, with its registration in the directory. */
const registeredInDirectory = (ctx: ServiceContext) => (ctx.idempotencyClaim?.binding ?? ctx.binding) !== "DB";

const KEEP_ANSWER =
  "UPDATE idempotency_keys SET status = ?, content_type = ?, body = ? WHERE user_id = ? AND key = ? AND claim = ?";

/**
 * For a write's own D1 batch: the statement that keeps `payload` (JSON, `status`) as the answer of the request's
 * Idempotency-Key, so the data and its answer commit together (none without an owned key). The request's final
 * answer replaces it when the request completes; a crash in between leaves this one for the retry.
 */
export async function keptAnswerStatements(
  ctx: ServiceContext,
  input: { d1: D1Database; payload: unknown; status?: number; when?: { sql: string; params: readonly unknown[] } },
): Promise<D1PreparedStatement[]> {
  const { d1, payload, status = 200, when } = input;
  const owned = ctx.idempotencyClaim;
  if (!owned || !keepsHere(ctx, owned)) return [];
  const body = await sealBody(ctx.env, owned.callerId, owned.key, JSON.stringify(payload));
  // `when`: kept only if the write took (a condition on what the batch wrote before this statement).
  return [
    statement(
      d1,
      when ? `${KEEP_ANSWER} AND (${when.sql})` : KEEP_ANSWER,
      status,
      "application/json",
      body,
      owned.callerId,
      owned.key,
      owned.claim,
      ...(when?.params ?? []),
    ),
  ];
}

const RENEW_LEASE =
  "UPDATE idempotency_keys SET created_at = ? WHERE user_id = ? AND key = ? AND claim = ? AND status IS NULL";
const CLAIM_HELD = "EXISTS (SELECT 1 FROM idempotency_keys WHERE user_id = ? AND key = ? AND claim = ?)";

/**
 * For a write made of many batches that may run past IDEMPOTENCY_LEASE_MS (a CSV import): the statement that renews
 * the lease of the request's claim from `at`, for each of its batches (a retry meanwhile is 409, not a second run),
 * and the condition that the claim is still this request's, for the batch that commits (a claim taken over while
 * the request stalled longer than the lease must not commit beside the retry). Nothing without an owned key here.
 */
export function claimLease(
  ctx: ServiceContext,
  d1: D1Database,
): { renew: (at: number) => D1PreparedStatement[]; held: { sql: string; params: readonly unknown[] } | null } {
  const owned = ctx.idempotencyClaim;
  if (!owned || !keepsHere(ctx, owned)) return { renew: () => [], held: null };
  return {
    renew: (at) => [statement(d1, RENEW_LEASE, at, owned.callerId, owned.key, owned.claim)],
    held: { sql: CLAIM_HELD, params: [owned.callerId, owned.key, owned.claim] },
  };
}

/**
 * Frees a key this request claimed in its authentication batch when authentication then refused the request (an
 * expired token, the rate limit): the caller is not settled yet, so the user comes from the token row. Without
 * this, a retry with the same key would see "still in progress" for 24 hours.
 */
export async function releaseRefusedClaim(
  ctx: ServiceContext,
  input: { userId: string; request: ClaimRequest; record: IdempotencyRecord | undefined },
) {
  const { userId, request: req, record } = input;
  if (record?.claim !== req.claim) return;
  const where = and(
    eq(idempotencyKeys.userId, userId),
    eq(idempotencyKeys.key, req.key),
    eq(idempotencyKeys.claim, req.claim),
  );
  await Promise.all([
    claimDb(ctx).delete(idempotencyKeys).where(where),
    ...(registeredInDirectory(ctx) ? [ctx.dir.delete(idempotencyKeys).where(where)] : []),
  ]);
}

/** `keptAnswerStatements` as Drizzle queries, for a write batch made with `ctx.db.batch`. */
export async function keptAnswerUpdates(ctx: ServiceContext, input: { payload: unknown; status?: number; when?: SQL }) {
  const { payload, status = 200, when } = input;
  const owned = ctx.idempotencyClaim;
  if (!owned || !keepsHere(ctx, owned)) return [];
  const body = await sealBody(ctx.env, owned.callerId, owned.key, JSON.stringify(payload));
  return [
    ctx.db
      .update(idempotencyKeys)
      .set({ status, contentType: "application/json", body })
      .where(
        and(
          eq(idempotencyKeys.userId, owned.callerId),
          eq(idempotencyKeys.key, owned.key),
          eq(idempotencyKeys.claim, owned.claim),
          when,
        ),
      ),
  ];
}

/**
 * Frees a key whose request failed on our side, so a retry runs again — unless the request's write already kept
 * an answer with its data (`keptAnswerStatements`): running again would write twice, so that answer stays.
 */
export async function releaseIdempotencyKey(
  ctx: ServiceContext,
  input: { key: string; claim: string; callerId?: string },
) {
  const { key, claim, callerId = ctx.user.id } = input;
  const where = and(
    eq(idempotencyKeys.userId, callerId),
    eq(idempotencyKeys.key, key),
    eq(idempotencyKeys.claim, claim),
    isNull(idempotencyKeys.status),
  );
  await Promise.all([
    claimDb(ctx).delete(idempotencyKeys).where(where),
    ...(registeredInDirectory(ctx) ? [ctx.dir.delete(idempotencyKeys).where(where)] : []),
  ]);
}
