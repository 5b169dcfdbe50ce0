/**
 * Reads across shard databases (docs/architecture.md "Tenancy"): the same statements on every shard at once, or a
 * uniqueness checked on every other shard, always beside the token's check of a request still authenticating, so
 * they stay one round trip of latency and no result is used before the directory agrees. Built over the context's
 * `everyShard()`; the request's pending authentication rides in the first shard's `read()`.
 */
import type { BatchItem, BatchResponse } from "drizzle-orm/batch";
import type { Db } from "../env";
import { answersFrom, read, type ServiceContext } from "./context";
import { ensureAuthenticated } from "./batchedAuth";

type Batch = [BatchItem<"sqlite">, ...BatchItem<"sqlite">[]];
const batchOf = async (db: Db, items: BatchItem<"sqlite">[]): Promise<unknown[]> =>
  items.length ? ((await db.batch(items as Batch)) as unknown[]) : [];

type Queries = readonly [BatchItem<"sqlite">, ...BatchItem<"sqlite">[]];

/**
 * `read()` on every shard database at once, beside the token's check (one round trip of latency): the same
 * statements in each, results per shard in binding order, none used before the directory agrees. For work about
 * no one organization (a search across everything readable). A token of the older form names no user, so the
 * directory answers first (one round trip more) and every shard's statements name the caller.
 */
export async function readOnEveryShard<const T extends Queries>(
  ctx: ServiceContext,
  build: (db: Db) => T,
): Promise<BatchResponse<T>[]> {
  if (!ctx.user.resolved && !ctx.user.claimedUserId) await ensureAuthenticated(ctx);
  // The first shard's context is about no one logical shard: nothing for a move learned meanwhile to send elsewhere.
  const [first, ...rest] = ctx.everyShard();
  answersFrom(first!);
  // read() starts first: its authentication marks the request's round trips as running, so the other shards' may start.
  return Promise.all([
    read(first!, build(first!.db)),
    ...rest.map((shard) => batchOf(shard.db, [...build(shard.db)]) as Promise<BatchResponse<T>>),
  ]);
}

/**
 * `read()` of a record whose id names no shard (an id the client chose: a clause or table reference's `_id`):
 * readOnEveryShard, then the results of the shard that `found` accepts (the first shard when none does, so the
 * caller's 404 follows), with a new context on that shard for the work that follows.
 */
export async function readWhereFound<const T extends Queries>(
  ctx: ServiceContext,
  build: (db: Db) => T,
  found: (results: BatchResponse<T>) => boolean,
): Promise<[BatchResponse<T>, ServiceContext]> {
  const all = await readOnEveryShard(ctx, build);
  const index = Math.max(0, all.findIndex(found));
  return [all[index]!, answersFrom(ctx.everyShard()[index]!)];
}

/**
 * `read(ctx, queries)` on the request's database and `elsewhere` on every other shard database at the same time
 * (one round trip of latency): a uniqueness that must hold across shards (a client-chosen `_id`, a portal slug).
 */
export async function readBesideOtherShards<const T extends Queries>(
  ctx: ServiceContext,
  queries: T,
  elsewhere: (db: Db) => BatchItem<"sqlite">,
): Promise<[BatchResponse<T>, unknown[][]]> {
  const mine = read(ctx, queries);
  const others = ctx
    .everyShard()
    .filter((shard) => shard.binding !== ctx.binding)
    .map(async (shard) => (await batchOf(shard.db, [elsewhere(shard.db)]))[0] as unknown[]);
  return Promise.all([mine, Promise.all(others)]);
}
