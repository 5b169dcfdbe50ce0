/**
 * The repair of a directory index (docs/architecture.md "Tenancy", docs/scaling.md "Repairs"): what a write keeps in
 * two databases — a claim in one beside its record in the other — so that a crash between the two leaves one
 * without the other. Four indexes are instances, each naming its own SQL (`DirectoryIndex`), the algorithm being
 * this file's alone:
 *
 * - portal routes and reference ids: names unique across every shard, claimed in the directory (`DB`) beside their
 *   record in a shard (src/services/portals/routes.ts, src/services/references/referenceIds.ts);
 * - the index of memberships: the directory's copy of each membership, carrying its shard's versions
 *   (src/services/organizations/userOrganizations.ts);
 * - users' copies: every shard's copy of each user of the directory (src/services/identity/users.ts), the one
 *   index whose records are in the directory and whose claims are in the shards.
 *
 * Two phases, each idempotent:
 *
 * 1. orphaned claims go (`orphans`, indexes of claims in the directory): every claim of the page query (older than
 *    the index's grace; after `since`, or the least recently checked), paged by its key, whose record is not in the
 *    shard database its owner id names now (placements learned first) is deleted. The delete names the claim
 *    exactly (its time included), so a claim taken again meanwhile stays. An index whose claims carry their record's
 *    values also corrects the claims found (`correct`) and stamps them checked (`stamp`).
 * 2. missing claims come (`missing`): the records changed after `since`, read in pages where they live (every shard,
 *    or the directory), are written as claims where the claims live; a claim already there is left alone, or, for
 *    an index that carries versions, replaced by a newer one only (the index's own SQL decides).
 *
 * Run every minute by the Worker's repairs (src/tenancy/operations/repairs.ts) a day back; `since` 0 is a full pass,
 * which lifts the bound an index sets on a tick's work.
 */
import type { Env } from "../../env";
import { createDb } from "../../db/client";
import { refreshPlacements } from "../kernel/placements";
import { groupByShard } from "../kernel/ids";
import { shardBindings } from "../kernel/map";

/** Claims read and records checked per page of the first phase; claims written per statement in the second. */
const PAGE = 500;
const INSERT_CHUNK = 2_000;

/** A statement an index supplies: its SQL, and the values it binds from the algorithm's arguments. */
export interface Statement<Args extends unknown[]> {
  sql: string;
  bind(...args: Args): unknown[];
}

/** The first phase: claims in the directory checked against their records in the shards. */
export interface OrphanCheck<Claim, Rec> {
  /** A claim older than this is settled: its writer is done, or dead. */
  graceMs: number;
  /**
   * The claims taken before `before` (`now` less the grace) — after `since` where the index is walked a window
   * back — whose key follows `key`, in key order, at most `limit`.
   */
  claims: Statement<[before: number, since: number, key: string, limit: number]>;
  /** The key before every claim, for the first page. */
  firstKey: string;
  /** A claim's key, for the page after it. */
  keyOf(claim: Claim): string;
  /** At most this many claims checked a tick (an index walked least recently checked first); unbounded when absent. */
  perTick?: number;
  /** The id naming the shard database the claim's record lives in. */
  ownerOf(claim: Claim): string;
  /** The records of `claims` a shard holds. */
  held: Statement<[claims: Claim[]]>;
  /** The claims a record found by `held` holds, as `sameClaim` strings. */
  heldBy(record: Rec): string[];
  /** A string naming a claim's name and owner, for matching against heldBy(). */
  sameClaim(claim: Claim): string;
  /** The delete of exactly this claim (its time included). */
  deleteClaim: Statement<[claim: Claim]>;
  /** For claims carrying their record's values: the claims of `records` corrected where they differ. */
  correct?: Statement<[records: Rec[], now: number]>;
  /** For claims walked least recently checked first: the claims of `records` stamped checked at `now`. */
  stamp?: Statement<[records: Rec[], now: number]>;
}

/** The second phase: claims written for the records that lack them. */
export interface MissingClaims<Row> {
  /** Where the records live: every shard (claims in the directory), or the directory (claims in every shard). */
  records: "shards" | "directory";
  /**
   * The records changed after `since`, each query read whole, or, with `paged`, in pages: those whose key follows
   * `key`, in key order, at most `limit`.
   */
  wanted: readonly Statement<[since: number, key: string, limit: number]>[];
  /** For an index whose tick reads a bounded number of pages: the first key, a row's key, the pages of a tick. */
  paged?: { firstKey: string; keyOf(row: Row): string; perTick: number };
  /** The claims a record must hold, each as an array of values. */
  claimsOf(row: Row): unknown[][];
  /** Writes the claims of `chunk` (JSON text of claimsOf arrays) at `now`, leaving those held alone. */
  insertClaims: Statement<[chunk: string, now: number]>;
}

export interface DirectoryIndex<Claim = never, Rec = never, Row = Record<string, unknown>> {
  /** Absent for an index whose claims outlive nothing (users' copies: users are never deleted). */
  orphans?: OrphanCheck<Claim, Rec>;
  missing: MissingClaims<Row>;
}

const prepare = <Args extends unknown[]>(d1: D1Database, statement: Statement<Args>, ...args: Args) =>
  d1.prepare(statement.sql).bind(...statement.bind(...args));

export interface IndexRepair {
  /** Claims deleted: their records were not in their shards. */
  deleted: number;
  /** Claims written for records that had none (or, for an index carrying versions, an older one). */
  added: number;
  /** Claims corrected from their records by the first phase (`correct`). */
  corrected: number;
}

/** The first phase, page by page: at most the index's `perTick` claims unless `since` is 0 (a full pass). */
async function deleteOrphans<Claim, Rec>(
  env: Env,
  check: OrphanCheck<Claim, Rec>,
  now: number,
  since: number,
): Promise<Omit<IndexRepair, "added">> {
  const dir = env.DB;
  const total = { deleted: 0, corrected: 0 };
  const bound = since <= 0 || check.perTick === undefined ? Infinity : check.perTick;
  let seen = 0;
  let after = check.firstKey;
  while (seen < bound) {
    const limit = Math.min(PAGE, bound - seen);
    const { results: claims } = await prepare(dir, check.claims, now - check.graceMs, since, after, limit).all<Claim>();
    if (claims.length === 0) break;
    seen += claims.length;
    after = check.keyOf(claims[claims.length - 1]!);
    const page = await settlePage(env, check, claims, now);
    total.deleted += page.deleted;
    total.corrected += page.corrected;
    if (claims.length < limit) break;
  }
  return total;
}

/** One page of claims checked in their shards: the orphans deleted, the others corrected and stamped, in one batch. */
async function settlePage<Claim, Rec>(env: Env, check: OrphanCheck<Claim, Rec>, claims: Claim[], now: number) {
  const dir = env.DB;
  const perShard = [...groupByShard(claims, (c) => check.ownerOf(c))].map(async ([binding, rows]) => {
    const { results: found } = await prepare(env[binding]!, check.held, rows).all<Rec>();
    const held = new Set(found.flatMap((r) => check.heldBy(r)));
    return { orphans: rows.filter((r) => !held.has(check.sameClaim(r))), found };
  });
  const pages = await Promise.all(perShard);
  const orphans = pages.flatMap((p) => p.orphans);
  const found = pages.flatMap((p) => p.found);
  const statements: D1PreparedStatement[] = [];
  // Corrected where they differ, then stamped checked; the deletes after.
  if (found.length && check.correct) statements.push(prepare(dir, check.correct, found, now));
  if (found.length && check.stamp) statements.push(prepare(dir, check.stamp, found, now));
  const kept = statements.length;
  statements.push(...orphans.map((c) => prepare(dir, check.deleteClaim, c)));
  if (statements.length === 0) return { deleted: 0, corrected: 0 };
  const results = await dir.batch(statements);
  const changes = (r: D1Result) => r.meta.changes ?? 0;
  return {
    corrected: found.length && check.correct ? changes(results[0]!) : 0,
    deleted: results.slice(kept).reduce((a, r) => a + changes(r), 0),
  };
}

/** The claims the records of `d1` changed after `since` must hold, page by page. */
async function* wantedIn<Row>(missing: MissingClaims<Row>, d1: D1Database, since: number): AsyncIterable<unknown[][]> {
  const paged = missing.paged && since > 0 ? missing.paged : undefined;
  const limit = missing.paged ? PAGE : -1;
  for (const query of missing.wanted) {
    let key = missing.paged?.firstKey ?? "";
    for (let page = 0; page < (paged?.perTick ?? Infinity); page++) {
      const { results } = await prepare(d1, query, since, key, limit).all<Row>();
      if (results.length > 0) yield results.flatMap((r) => missing.claimsOf(r));
      if (!missing.paged || results.length < limit) break;
      key = missing.paged.keyOf(results[results.length - 1]!);
    }
  }
}

async function insertAll<Row>(missing: MissingClaims<Row>, d1: D1Database, claims: unknown[][], now: number) {
  let added = 0;
  for (let i = 0; i < claims.length; i += INSERT_CHUNK) {
    const chunk = JSON.stringify(claims.slice(i, i + INSERT_CHUNK));
    const { meta } = await prepare(d1, missing.insertClaims, chunk, now).run();
    added += meta.changes ?? 0;
  }
  return added;
}

async function addMissing<Row>(env: Env, missing: MissingClaims<Row>, now: number, since: number): Promise<number> {
  const shards = shardBindings().map((binding) => env[binding]!);
  const sum = (counts: number[]) => counts.reduce((a, n) => a + n, 0);
  if (missing.records === "directory") {
    let added = 0;
    for await (const page of wantedIn(missing, env.DB, since))
      added += sum(await Promise.all(shards.map((d1) => insertAll(missing, d1, page, now))));
    return added;
  }
  const perShard = shards.map(async (d1) => {
    let added = 0;
    for await (const page of wantedIn(missing, d1, since)) added += await insertAll(missing, env.DB, page, now);
    return added;
  });
  return sum(await Promise.all(perShard));
}

/**
 * A request's side of an index: `claim` (the service's statement taking names in the directory) runs beside
 * `alongside` (the request's other work of that round trip), then `write` (the record, in its shard). When the
 * other work or the write fails after the claim took names fresh, `giveBack` releases them before the error is
 * answered; a give-back that fails is for the service to log, the repair deleting what is left. With `claimFirst`,
 * a claim refused (409) is answered before a failure of the other work; otherwise after it.
 */
export async function withClaim<Fresh, Read, T>(input: {
  claim: Promise<Fresh>;
  alongside: Promise<Read>;
  claimFirst: boolean;
  write: (fresh: Fresh, read: Read) => Promise<T>;
  giveBack: (fresh: Fresh) => Promise<void>;
}): Promise<T> {
  const [claimed, read] = await Promise.allSettled([input.claim, input.alongside]);
  if (claimed.status === "rejected" && input.claimFirst) throw claimed.reason;
  try {
    if (read.status === "rejected") throw read.reason;
    if (claimed.status === "rejected") throw claimed.reason;
    return await input.write(claimed.value, read.value);
  } catch (err) {
    if (claimed.status === "fulfilled") await input.giveBack(claimed.value);
    throw err;
  }
}

/** Both phases of the repair of `index` (see the head of this file). */
export async function reconcileIndex<Claim, Rec, Row>(
  env: Env,
  index: DirectoryIndex<Claim, Rec, Row>,
  now: number,
  since: number,
): Promise<IndexRepair> {
  // A claim names a record found where its shard is served now: learn any move first.
  await refreshPlacements(createDb(env.DB));
  const checked = index.orphans ? await deleteOrphans(env, index.orphans, now, since) : { deleted: 0, corrected: 0 };
  const added = await addMissing(env, index.missing, now, since);
  return { ...checked, added };
}
