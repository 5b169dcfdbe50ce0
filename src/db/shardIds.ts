// Ids that carry their logical shard (docs/scaling.md "Id format"): the policy over the codec of src/lib/ids.ts —
// only logical shards are issued, and an id of the older plain-ULID form names the default logical shard. Not yet
// used by the services: the wiring step (docs/scaling.md "Plan", step 3) switches records inside an organization
// from newId to newOrganizationScopedId.
import { newShardedId, shardNumberOfId } from "../lib/ids";
import { DEFAULT_LOGICAL_SHARD, isLogicalShard } from "./shards";

export function newOrganizationScopedId(logicalShard: number): string {
  if (!isLogicalShard(logicalShard)) throw new RangeError(`not a logical shard: ${logicalShard}`);
  return newShardedId(logicalShard);
}

/**
 * The logical shard an id names: its two last digits for the 28-character form; DEFAULT_LOGICAL_SHARD for a plain
 * 26-character ULID (every id issued before ids carried a shard); null for anything else — other forms, and shard
 * numbers that are not logical shards (480–1023 are reserved) — which no organization owns (the caller answers 404
 * without a query).
 */
export function logicalShardOfId(id: string): number | null {
  const n = shardNumberOfId(id);
  if (n === "plain") return DEFAULT_LOGICAL_SHARD;
  return n !== null && isLogicalShard(n) ? n : null;
}
