// Ids that carry their logical shard (docs/scaling.md "Id format"): the policy over the codec of src/lib/ids.ts —
// only logical shards are issued, and an id of the older plain-ULID form names the default logical shard. A new
// organization's id is drawn on a logical shard by the placement rule (newOrganizationId); every record inside it
// is issued on the same shard as a record it belongs to (newIdBeside), so its id names its organization's shard
// (docs/scaling.md "Id format").
import { newShardedId, shardNumberOfId, shardSuffix } from "../../lib/ids";
import { servingBindingOf } from "./placements";
import {
  cryptoRandom,
  DEFAULT_LOGICAL_SHARD,
  isLogicalShard,
  placeOrganization,
  shardBindings,
  type ShardBinding,
} from "./map";

export function newOrganizationScopedId(logicalShard: number): string {
  if (!isLogicalShard(logicalShard)) throw new RangeError(`not a logical shard: ${logicalShard}`);
  return newShardedId(logicalShard);
}

/**
 * The logical shard an id names: its two last digits (the 28-character form, src/lib/ids.ts); null for anything
 * else — other forms, and shard numbers that are not logical shards (480–1023 are reserved) — which no
 * organization owns (the caller answers 404 without a query).
 */
export function logicalShardOfId(id: string): number | null {
  const n = shardNumberOfId(id);
  return n !== null && isLogicalShard(n) ? n : null;
}

/** A new organization's id, on the logical shard the placement rule draws (src/tenancy/kernel/map.ts placeOrganization). */
export function newOrganizationId(): string {
  return newOrganizationScopedId(placeOrganization(cryptoRandom));
}

/**
 * The logical shard of the organization `relative` belongs to, for a record issued beside it; an id naming no
 * logical shard (which no stored record has) gives the default shard.
 */
function shardBeside(relative: string): number {
  return logicalShardOfId(relative) ?? DEFAULT_LOGICAL_SHARD;
}

/** A new id for a record of the same organization as `relative` (the workspace, project, table… it belongs to). */
export function newIdBeside(relative: string): string {
  return newOrganizationScopedId(shardBeside(relative));
}

/** `newIdBeside(relative)` for many records: the shard is decoded once (a bulk insert issues thousands of ids). */
export function idsBeside(relative: string): () => string {
  const shard = shardBeside(relative);
  return () => newShardedId(shard);
}

/** The two characters that end the ids issued beside `relative` (for ids built in SQL, e.g. the formula engine's cells). */
export function shardSuffixBeside(relative: string): string {
  return shardSuffix(shardBeside(relative));
}

/** The shard database holding the record `id` (SHARD_MAP and the moves learned since, ./placements), or null for an id that names no logical shard. */
export function shardBindingOfId(id: string): ShardBinding | null {
  const logical = logicalShardOfId(id);
  return logical === null ? null : servingBindingOf(logical);
}

/**
 * The shard database to look for the record `id` in: the one holding it, or for an id naming no logical shard the
 * first shard database. No record anywhere has such an id, so the lookup finds nothing and answers as any absent
 * record does (404); the directory has no shard tables to look in (docs/scaling.md "Routing with no lookup").
 */
export function shardBindingForId(id: string): ShardBinding {
  return shardBindingOfId(id) ?? shardBindings()[0]!;
}

/** `items` grouped by the shard database to look for the record each names in (shardBindingForId), for one statement per database. */
export function groupByShard<T>(items: Iterable<T>, idOf: (item: T) => string): Map<ShardBinding, T[]> {
  const groups = new Map<ShardBinding, T[]>();
  for (const item of items) {
    const binding = shardBindingForId(idOf(item));
    const group = groups.get(binding);
    if (group) group.push(item);
    else groups.set(binding, [item]);
  }
  return groups;
}

/**
 * How a service issues ids (docs/architecture.md "Tenancy"): every record is issued beside a record it belongs to
 * (its project, table, document…), so its id names its organization's shard; a service never decides the shard.
 */
export interface IdIssuer {
  /** A new id for a record of the same organization as `parentId`. */
  beside(parentId: string): string;
  /** `beside(parentId)` for many records: the shard is decoded once (a bulk insert issues thousands of ids). */
  seriesBeside(parentId: string): () => string;
  /** The two characters that end the ids issued beside `parentId` (for ids built in SQL). */
  suffixBeside(parentId: string): string;
  /** A new organization's id, on the logical shard the placement rule draws. */
  organization(): string;
  /**
   * A new organization's id on the logical shard the placement rule draws from `draw` (in [0, 1)): the same draw
   * places it on the same shard (a keyed create's retry lands where its first attempt claimed the key).
   */
  organizationDrawn(draw: number): string;
}

export const idIssuer: IdIssuer = {
  beside: newIdBeside,
  seriesBeside: idsBeside,
  suffixBeside: shardSuffixBeside,
  organization: newOrganizationId,
  organizationDrawn: (draw) => newOrganizationScopedId(placeOrganization(() => draw)),
};
