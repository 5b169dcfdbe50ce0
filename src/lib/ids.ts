import { monotonicFactory } from "ulidx";
import { z } from "@hono/zod-openapi";
import { DEFAULT_LOGICAL_SHARD, isLogicalShard } from "../db/shards";

const ulid = monotonicFactory();

/** Time-sortable, URL-safe identifiers (ULID, 26 characters). */
export function newId(): string {
  return ulid();
}

/**
 * Organization-scoped ids carry their logical shard (docs/scaling.md "Id format"): a ULID followed by the logical
 * shard in two Crockford base-32 digits, 28 characters in all ("01JF…Q7" + "0F" for shard 15). The shard comes
 * last so ids still sort by time, old and new together. Shards 480–1023 fit the two digits but are not issued.
 * Not yet used by the services: the wiring step (docs/scaling.md "Plan") switches newId to this for records
 * inside an organization.
 */
const CROCKFORD = "0123456789ABCDEFGHJKMNPQRSTVWXYZ";
const ULID_FORM = /^[0-7][0-9A-HJKMNP-TV-Z]{25}$/;
const SHARDED_FORM = /^[0-7][0-9A-HJKMNP-TV-Z]{25}[0-9A-HJKMNP-TV-Z]{2}$/;

/** The two characters that end the ids of a logical shard ("0F" for 15). */
export function shardSuffix(logicalShard: number): string {
  if (!isLogicalShard(logicalShard)) throw new RangeError(`not a logical shard: ${logicalShard}`);
  return CROCKFORD[logicalShard >> 5]! + CROCKFORD[logicalShard & 31]!;
}

export function newShardedId(logicalShard: number): string {
  return ulid() + shardSuffix(logicalShard);
}

/**
 * The logical shard an id names: its two last digits for the 28-character form; DEFAULT_LOGICAL_SHARD for a plain
 * 26-character ULID (every id issued before ids carried a shard); null for anything else, which no organization
 * owns (the caller answers 404 without a query).
 */
export function logicalShardOfId(id: string): number | null {
  if (ULID_FORM.test(id)) return DEFAULT_LOGICAL_SHARD;
  if (!SHARDED_FORM.test(id)) return null;
  const shard = CROCKFORD.indexOf(id[26]!) * 32 + CROCKFORD.indexOf(id[27]!);
  return isLogicalShard(shard) ? shard : null;
}

export const ID_PATTERN = /^[A-Za-z0-9_-]{1,64}$/;

export const IdSchema = z.string().min(1).max(64).regex(ID_PATTERN, "must be 1-64 characters of A-Z a-z 0-9 _ -");

export const now = () => Date.now();
