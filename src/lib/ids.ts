import { monotonicFactory } from "ulidx";

const ulid = monotonicFactory();

/** Time-sortable, URL-safe identifiers (ULID, 26 characters). */
export function newId(): string {
  return ulid();
}

/**
 * The id format of records inside an organization (docs/scaling.md "Id format"): a ULID followed by a shard number
 * in two Crockford base-32 digits, 28 characters in all ("01JF…Q7" + "0F" for shard 15). The shard comes last so
 * ids still sort by time. Records of the directory (users, tokens) keep the plain 26-character form, which names no
 * shard. This is the codec only; which shard numbers are logical shards is src/tenancy/kernel/ids.ts's (lib/ is the bottom
 * layer and imports nothing of src).
 */
const CROCKFORD = "0123456789ABCDEFGHJKMNPQRSTVWXYZ";
const SHARDED_FORM = /^[0-7][0-9A-HJKMNP-TV-Z]{25}[0-9A-HJKMNP-TV-Z]{2}$/;

/** How many shard numbers two digits hold (0…1023). */
export const SHARD_NUMBERS = 1024;

/** The two characters that end the ids of shard number `shard` ("0F" for 15). */
export function shardSuffix(shard: number): string {
  if (!Number.isInteger(shard) || shard < 0 || shard >= SHARD_NUMBERS)
    throw new RangeError(`not a shard number: ${shard}`);
  return CROCKFORD[shard >> 5]! + CROCKFORD[shard & 31]!;
}

export function newShardedId(shard: number): string {
  return ulid() + shardSuffix(shard);
}

/** The shard number a 28-character id ends with; null for anything else. */
export function shardNumberOfId(id: string): number | null {
  if (!SHARDED_FORM.test(id)) return null;
  return CROCKFORD.indexOf(id[26]!) * 32 + CROCKFORD.indexOf(id[27]!);
}

export const ID_PATTERN = /^[A-Za-z0-9_-]{1,64}$/;
