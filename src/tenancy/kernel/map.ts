// Logical shards over physical D1 databases (docs/scaling.md, "Logical shards" and "Placement").
//
// Every organization lives on one of LOGICAL_SHARDS logical shards, chosen when it is created and written into
// every id it owns (src/lib/ids.ts), so the shard of a record is known from its id alone. A logical shard lives in
// one physical database, named by a binding SHARD_0 … SHARD_{n-1}; this module is the one place that says which.
// Re-spreading the logical shards over more (or other) databases changes this map, never an id.
//
// The module is pure (no bindings, no imports, only erasable TypeScript), so scripts/bench/shards.mjs runs the same
// map and placement rule as the Worker. New organizations are placed by it (src/tenancy/kernel/ids.ts), and requests are
// routed by it (docs/scaling.md "Routing with no lookup").

/**
 * 480 = 2^5 · 3 · 5: it divides evenly over 1, 2, 3, 4, 5, 6, 8, 10, 12, 15, 16, 20, 24, 30, 32, 40, 48, 60, 80,
 * 96, 120, 160, 240 and 480 databases, so every step of growth keeps the same number of logical shards on each
 * database; and it fits two base-32 digits of an id (up to 1024) with room to spare.
 */
export const LOGICAL_SHARDS = 480;

/** The logical shard a record is issued on when the id it is issued beside names none (no stored record's id does so). */
export const DEFAULT_LOGICAL_SHARD = 0;

export type ShardBinding = `SHARD_${number}`;

export interface ShardMap {
  /** How many physical databases (bindings SHARD_0 … SHARD_{physical-1}). Must divide LOGICAL_SHARDS. */
  readonly physical: number;
  /** Logical shards moved away from their default database: logical → physical index. */
  readonly moved: Readonly<Record<number, number>>;
  /**
   * Logical shards closed to new organizations: one that was given a database of its own because it is hot stays
   * closed, so placement does not fill that database again.
   */
  readonly closed: readonly number[];
}

/**
 * The map the Worker uses. Four databases locally (so every test crosses databases); a deployment sets its own
 * count and records each `npm run shard:move` here (docs/scaling.md "Moving a logical shard": the map is also fenced in the shard
 * databases, so a Worker running an older map cannot write to a database a shard has left).
 */
export const SHARD_MAP: ShardMap = { physical: 4, moved: {}, closed: [] };

export function isLogicalShard(n: number): boolean {
  return Number.isInteger(n) && n >= 0 && n < LOGICAL_SHARDS;
}

/**
 * The physical database of a logical shard: its entry in `moved`, else its default, a contiguous range —
 * database k holds logical shards [k·L/P, (k+1)·L/P). Ranges split cleanly when the count grows by a factor
 * (32 → 96: each database hands two thirds of its range to two new ones), as Notion's re-shard did.
 */
export function physicalIndexOf(logical: number, map: ShardMap = SHARD_MAP): number {
  if (!isLogicalShard(logical)) throw new RangeError(`not a logical shard: ${logical}`);
  return map.moved[logical] ?? Math.floor((logical * map.physical) / LOGICAL_SHARDS);
}

export function bindingOf(logical: number, map: ShardMap = SHARD_MAP): ShardBinding {
  return `SHARD_${physicalIndexOf(logical, map)}`;
}

/** Every physical binding of the map, in order (the Cron claim and migrations visit each once). */
export function shardBindings(map: ShardMap = SHARD_MAP): ShardBinding[] {
  return Array.from({ length: map.physical }, (_, k) => `SHARD_${k}` as ShardBinding);
}

/** The logical shards a physical database holds under `map`. */
export function logicalShardsOn(physical: number, map: ShardMap = SHARD_MAP): number[] {
  const out: number[] = [];
  for (let l = 0; l < LOGICAL_SHARDS; l++) if (physicalIndexOf(l, map) === physical) out.push(l);
  return out;
}

/** What is wrong with a map (empty when it is usable). */
export function shardMapProblems(map: ShardMap): string[] {
  const problems: string[] = [];
  if (!Number.isInteger(map.physical) || map.physical < 1 || map.physical > LOGICAL_SHARDS)
    problems.push(`physical must be 1…${LOGICAL_SHARDS}`);
  else if (LOGICAL_SHARDS % map.physical !== 0)
    problems.push(`physical (${map.physical}) must divide ${LOGICAL_SHARDS}`);
  for (const [l, k] of Object.entries(map.moved)) {
    if (!isLogicalShard(Number(l))) problems.push(`moved: ${l} is not a logical shard`);
    if (!Number.isInteger(k) || k < 0 || k >= map.physical)
      problems.push(`moved: ${l} → ${k} is not a database of the map`);
  }
  for (const l of map.closed) if (!isLogicalShard(l)) problems.push(`closed: ${l} is not a logical shard`);
  if (map.closed.length >= LOGICAL_SHARDS) problems.push("closed: no logical shard is left open for new organizations");
  return problems;
}

/**
 * Placement of a new organization: a logical shard drawn uniformly at random among those open to new
 * organizations. Uniform and stateless on purpose: it needs no load figures at creation time (an organization's
 * size is unknown then), spreads counts evenly, and the heavy tail it cannot foresee is handled by moving logical
 * shards later (docs/scaling.md "Placement"). `random` returns [0, 1): crypto-backed in the Worker, seeded in the
 * bench.
 */
export function placeOrganization(random: () => number, map: ShardMap = SHARD_MAP): number {
  const closed = new Set(map.closed);
  const openCount = LOGICAL_SHARDS - closed.size;
  if (openCount <= 0) throw new Error("no logical shard is open for new organizations");
  let pick = Math.min(openCount - 1, Math.floor(random() * openCount));
  for (let l = 0; l < LOGICAL_SHARDS; l++) {
    if (closed.has(l)) continue;
    if (pick-- === 0) return l;
  }
  throw new Error("unreachable");
}

/** A uniform [0, 1) from the platform's CSPRNG (for placeOrganization in the Worker). */
export function cryptoRandom(): number {
  const word = new Uint32Array(1);
  crypto.getRandomValues(word);
  return word[0]! / 2 ** 32;
}
