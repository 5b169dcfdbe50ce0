/**
 * The repair of a directory index (docs/scaling.md "Directory and shards"): an index in the directory (`DB`) of
 * names that must be unique across every shard database — portal routes, client-chosen reference ids — written by a
 * request beside its record in a shard, so a crash between the two leaves one without the other. One algorithm
 * serves every such index; each names its own SQL (`DirectoryIndex`):
 *
 * 1. orphaned claims go: every claim taken after `since` and more than the index's grace before `now`, paged by its
 *    key, whose record is not in the shard database its owner id names now (placements learned first) is deleted.
 *    The delete names the claim exactly (its time included), so a claim taken again meanwhile stays.
 * 2. missing claims come: every shard's records changed after `since` whose names hold no claim get one; a name
 *    another owner's claim holds is left alone (the claim decides).
 *
 * Idempotent; run every minute by the Worker's repairs (src/tenancy/operations/repairs.ts) a window back; `since` 0 is a full
 * pass.
 */
import type { Env } from "../../env";
import { createDb } from "../../db/client";
import { refreshPlacements } from "../kernel/placements";
import { groupByShard } from "../kernel/ids";
import { shardBindings } from "../kernel/map";

/** Claims read and records checked per page of the first phase; names inserted per statement in the second. */
const PAGE = 500;
const INSERT_CHUNK = 2_000;

export interface DirectoryIndex<Claim> {
  /** A claim older than this is settled: its writer is done, or dead. */
  graceMs: number;
  /** SQL over the index: claims with `claimed_at < ?1 AND claimed_at > ?2` after the key `?3`, in key order, LIMIT ?4. */
  claimsAfter: string;
  /** The key before every claim, bound to `?3` of claimsAfter for the first page. */
  firstKey: string;
  /** A claim's key, as bound to `?3` of claimsAfter for the page after it. */
  keyOf(claim: Claim): string;
  /** The id naming the shard database the claim's record lives in. */
  ownerOf(claim: Claim): string;
  /** The claims among `claims` whose records exist in `d1`, as `sameClaim` strings. */
  held(d1: D1Database, claims: Claim[]): Promise<Set<string>>;
  /** A string naming a claim's name and owner, for matching against held(). */
  sameClaim(claim: Claim): string;
  /** The delete of exactly this claim (its time included). */
  deleteClaim(dir: D1Database, claim: Claim): D1PreparedStatement;
  /** The names (as JSON arrays) the records of `d1` changed after `since` must hold. */
  wanted(d1: D1Database, since: number): Promise<unknown[][]>;
  /** Inserts claims for `chunk` (JSON text of wanted arrays) at `now`, leaving names already claimed alone. */
  insertClaims(dir: D1Database, chunk: string, now: number): D1PreparedStatement;
}

export interface IndexRepair {
  /** Claims deleted: their records were not in their shards. */
  deleted: number;
  /** Claims written for records that had none. */
  added: number;
}

async function deleteOrphans<Claim>(
  env: Env,
  index: DirectoryIndex<Claim>,
  now: number,
  since: number,
): Promise<number> {
  const dir = env.DB;
  let deleted = 0;
  let after = index.firstKey;
  for (;;) {
    const { results: claims } = await dir
      .prepare(index.claimsAfter)
      .bind(now - index.graceMs, since, after, PAGE)
      .all<Claim>();
    if (claims.length === 0) break;
    after = index.keyOf(claims[claims.length - 1]!);
    const perShard = [...groupByShard(claims, (c) => index.ownerOf(c))].map(async ([binding, rows]) => {
      const held = await index.held(env[binding]!, rows);
      return rows.filter((r) => !held.has(index.sameClaim(r)));
    });
    const orphans = (await Promise.all(perShard)).flat();
    if (orphans.length > 0) {
      await dir.batch(orphans.map((c) => index.deleteClaim(dir, c)));
      deleted += orphans.length;
    }
    if (claims.length < PAGE) break;
  }
  return deleted;
}

async function addMissing<Claim>(env: Env, index: DirectoryIndex<Claim>, now: number, since: number): Promise<number> {
  let added = 0;
  for (const binding of shardBindings()) {
    const wanted = await index.wanted(env[binding]!, since);
    for (let i = 0; i < wanted.length; i += INSERT_CHUNK) {
      const chunk = JSON.stringify(wanted.slice(i, i + INSERT_CHUNK));
      const { meta } = await index.insertClaims(env.DB, chunk, now).run();
      added += meta.changes ?? 0;
    }
  }
  return added;
}

/** Both phases of the repair of `index` (see the head of this file). */
export async function reconcileIndex<Claim>(
  env: Env,
  index: DirectoryIndex<Claim>,
  now: number,
  since: number,
): Promise<IndexRepair> {
  // A claim names a record found where its shard is served now: learn any move first.
  await refreshPlacements(createDb(env.DB));
  const deleted = await deleteOrphans(env, index, now, since);
  const added = await addMissing(env, index, now, since);
  return { deleted, added };
}
