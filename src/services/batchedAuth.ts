/**
 * Batched authentication (docs/api-guide.md › HTTP semantics: retries, caching, replicas): the token's statement,
 * and on a keyed POST the Idempotency-Key claim, ride in the request's first `read()` batch, and are checked before
 * any result is returned. The route layer (src/http/routeAuth.ts) defers them (deferAuthentication); services only
 * call `read()`. The directory's newer shard placements come back beside the token (followPlacements,
 * docs/scaling.md).
 */
import type { BatchItem, BatchResponse } from "drizzle-orm/batch";
import type { Db } from "../env";
import { ApiError } from "../errors";
import { applyPlacements, placementsQuery, type PlacementRow, type ServiceContext } from "./context";

/**
 * Applies the directory's newer placements (read beside the token, src/tenancy/kernel/placements.ts); true when the
 * request's logical shard is now served by another database than `ranOn`, where its first batch ran, so what ran
 * there is run again on the new one (the context's `db` follows the placements by itself). Compared with what the
 * isolate knows now, not only with these rows: another request of the isolate may have learned the move meanwhile.
 */
export function followPlacements(ctx: ServiceContext, rows: readonly PlacementRow[], ranOn = ctx.binding): boolean {
  applyPlacements(rows);
  return ctx.logical !== undefined && ranOn !== "DB" && ctx.binding !== ranOn;
}

/**
 * The per-request pieces that run a read batch with authentication folded in. Set by the route layer
 * (src/http/routeAuth.ts); services only call `read()`.
 */
export interface PendingAuthentication {
  /** The token's statement, run on the directory database (`ctx.dir`). */
  token: (dir: Db) => BatchItem<"sqlite">;
  /**
   * On a keyed POST, the Idempotency-Key claim's statements, run on the request's database (`ctx.db`): for the
   * user `userId` (the one the token names, or the one the directory verified), else (null) for the token's user
   * looked up in the same batch, so a token that fails claims nothing.
   */
  claims?: (db: Db, userId: string | null) => readonly BatchItem<"sqlite">[];
  /** Checks the results of the token's and the claim's statements, in that order (throws 401, 429, 409…) before any other result is returned. */
  complete: (results: unknown[]) => Promise<void> | void;
  /** True while `read()` runs the round trips that carry the statements. */
  running?: boolean;
}

/** Keyed by the request's session, so every context derived from the request's (ctx.on, actingAs…) sees it. */
const pending = new WeakMap<object, PendingAuthentication>();

export function deferAuthentication(ctx: ServiceContext, auth: PendingAuthentication) {
  pending.set(ctx.session, auth);
}

/**
 * One D1 round trip of latency for `queries`. When the request's authentication is still pending, its statement
 * rides along (docs/api-guide.md › HTTP semantics: retries, caching, replicas: authentication, access check and data
 * in one round trip) and is checked before any result is returned, so data never reaches a caller whose token fails.
 */
export async function read<const T extends readonly [BatchItem<"sqlite">, ...BatchItem<"sqlite">[]]>(
  ctx: ServiceContext,
  queries: T,
): Promise<BatchResponse<T>> {
  const auth = pending.get(ctx.session);
  if (!auth)
    return (await ctx.db.batch(
      queries as unknown as [BatchItem<"sqlite">, ...BatchItem<"sqlite">[]],
    )) as BatchResponse<T>;
  const [, rest] = await runPending(ctx, auth, queries);
  return rest as BatchResponse<T>;
}

/** Completes a pending authentication on its own (a route that turned out to need no read first). */
export async function ensureAuthenticated(ctx: ServiceContext) {
  const auth = pending.get(ctx.session);
  if (auth) await runPending(ctx, auth, []);
}

type Batch = [BatchItem<"sqlite">, ...BatchItem<"sqlite">[]];

/**
 * The claim results a keyed request on a shard database settles with (docs/scaling.md, "Idempotency-Keys"): the
 * shard's record holds the answer, the directory's registers the key for the user across every database. A key
 * the directory holds for a different request (another endpoint or body, on any database) wins, so its reuse is
 * refused (422) as it is on one database.
 */
function withRegistry(shard: unknown[], directory: unknown[]): unknown[] {
  type Rec = { claim: string; requestHash: string };
  const [insert, records] = shard as [unknown, Rec[] | undefined];
  const mine = records?.[0];
  const registered = (directory[1] as Rec[] | undefined)?.[0];
  if (mine && registered && registered.claim !== mine.claim && registered.requestHash !== mine.requestHash)
    return [insert, [registered]];
  return shard;
}
const batchOf = async (db: Db, items: BatchItem<"sqlite">[]): Promise<unknown[]> =>
  items.length ? ((await db.batch(items as Batch)) as unknown[]) : [];

/**
 * The pending statements and `queries`, the pending ones completed before anything returns:
 * - one database (`dir` is `db`): one batch, token and claim first;
 * - a shard database beside the directory: the token's check in the directory and the claim and queries in the
 *   shard at the same time (one round trip of latency), for the user the token names, results discarded unless
 *   the token's row names the same user (docs/scaling.md, "Reads stay one round trip of latency").
 */
async function runPending(
  ctx: ServiceContext,
  auth: PendingAuthentication,
  queries: readonly BatchItem<"sqlite">[],
): Promise<[unknown[], unknown[]]> {
  auth.running = true;
  let own: unknown[];
  let rest: unknown[];
  try {
    const token = auth.token(ctx.dir);
    if (ctx.dir === ctx.db) {
      const claims = auth.claims?.(ctx.db, null) ?? [];
      const results = await batchOf(ctx.db, [token, ...claims, ...queries]);
      own = results.slice(0, 1 + claims.length);
      rest = results.slice(1 + claims.length);
    } else {
      if (!ctx.user.claimedUserId) throw new ApiError("InternalError", "A pending authentication names no user");
      // A keyed request claims its key in its own database for the user the token names (a token the directory
      // refuses frees it again, src/http/routeAuth.ts), and registers it in the directory beside the token's check.
      const claimedUserId = ctx.user.claimedUserId;
      const claimsOn = (db: Db) => auth.claims?.(db, claimedUserId) ?? [];
      const claims = claimsOn(ctx.db);
      const registry = auth.claims?.(ctx.dir, null) ?? [];
      const ranOn = ctx.binding;
      const [checked, first] = await Promise.all([
        batchOf(ctx.dir, [token, placementsQuery(ctx.dir), ...registry]),
        batchOf(ctx.db, [...claims, ...queries]),
      ]);
      // The directory says the request's logical shard moved since this isolate routed it: what ran on the old
      // database (which refuses writes of a moved shard, and whose copy may be dropped) runs again on the new one.
      const results = followPlacements(ctx, checked[1] as PlacementRow[], ranOn)
        ? await batchOf(ctx.db, [...claimsOn(ctx.db), ...queries])
        : first;
      own = [checked[0], ...withRegistry(results.slice(0, claims.length), checked.slice(2))];
      rest = results.slice(claims.length);
    }
  } finally {
    auth.running = false;
  }
  pending.delete(ctx.session);
  await auth.complete(own);
  return [own, rest];
}

/**
 * Refuses any D1 round trip of a request whose batched authentication has not completed, except the batch that
 * carries it: a handler that queried before `read()` would otherwise run unauthenticated.
 */
export function guardUntilAuthenticated(ctx: ServiceContext): () => void {
  return () => {
    const auth = pending.get(ctx.session);
    if (auth && !auth.running)
      throw new ApiError(
        "InternalError",
        "A query ran before this request's authentication; read through read() first",
      );
  };
}
