// npm run bench -- shards [--orgs N] [--databases P] [--seed S] [--total-gb G] [--qps Q] [--query-ms T] [--measure]:
// the capacity model of docs/scaling.md as a simulation. A heavy-tailed (Zipf) population of organizations is
// placed on logical shards by the Worker's own rule (src/tenancy/kernel/map.ts: placeOrganization, the default
// logical → physical ranges), and the per-database storage and query share is printed; then the hottest logical
// shards are moved greedily (rebalance below) and the table is printed again.
//
// Done when (checked by scripts/test/shards-bench.test.mjs on a small population, and printed here): after the
// moves, every database above 2× the mean query load holds one logical shard alone (the unit no move can split)
// and no database passes 10 GB. Deterministic (a seeded PRNG) and pure computation: no Worker, no D1.
//
// --measure first times our typical statements on a local D1 (a table of 10,000 rows × 5 cells) and uses the slowest
// median of the single-record statements as the query time of the capacity lines.
import { LOGICAL_SHARDS, physicalIndexOf, placeOrganization, shardMapProblems } from "../../src/tenancy/kernel/map.ts";

const GB = 1e9;
/** D1's published ceiling per database. */
export const DATABASE_BYTES = 10 * GB;

/**
 * The population the bench simulates (docs/scaling.md "Placement"). Organization k (rank k + 1) has a storage
 * weight (k+1)^-storageZipf and a query weight (k+1)^-loadZipf, each times a lognormal factor, so the big are
 * usually also the busy but not in lockstep. Storage is capped at the per-organization quota (the design's answer
 * to one organization outgrowing a database).
 */
export const DEFAULTS = {
  orgs: 100_000,
  databases: 96,
  seed: 1,
  totalGb: 300,
  storageZipf: 0.8,
  loadZipf: 1.0,
  storageSigma: 0.3,
  loadSigma: 0.5,
  orgQuotaGb: 5,
  /** Moves keep a database below this fill, leaving room to grow and to receive a shard. */
  fillTarget: 0.8,
  qps: 20_000,
  queryMs: 0.5,
};

/** sfc32: small, fast, good enough for a simulation, and the same sequence on every machine. */
export function prng(seed) {
  let a = 0x9e3779b9,
    b = 0x243f6a88,
    c = 0xb7e15162,
    d = seed >>> 0;
  const next = () => {
    a >>>= 0;
    b >>>= 0;
    c >>>= 0;
    d >>>= 0;
    const t = (((a + b) | 0) + d) | 0;
    d = (d + 1) | 0;
    a = b ^ (b >>> 9);
    b = (c + (c << 3)) | 0;
    c = (c << 21) | (c >>> 11);
    c = (c + t) | 0;
    return (t >>> 0) / 4294967296;
  };
  for (let i = 0; i < 15; i++) next();
  return next;
}

/** Standard normal by Box–Muller. */
function gaussian(random) {
  const u = Math.max(random(), 1e-12);
  return Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * random());
}

/** The organizations: storage in bytes, query share (sums to 1), and the logical shard the placement rule gave. */
export function population(opts) {
  const o = { ...DEFAULTS, ...opts };
  const random = prng(o.seed);
  const storageW = new Float64Array(o.orgs);
  const loadW = new Float64Array(o.orgs);
  let sumS = 0,
    sumL = 0;
  for (let k = 0; k < o.orgs; k++) {
    storageW[k] = (k + 1) ** -o.storageZipf * Math.exp(o.storageSigma * gaussian(random));
    loadW[k] = (k + 1) ** -o.loadZipf * Math.exp(o.loadSigma * gaussian(random));
    sumS += storageW[k];
    sumL += loadW[k];
  }
  const quota = o.orgQuotaGb * GB;
  const storage = new Float64Array(o.orgs);
  const load = new Float64Array(o.orgs);
  const logical = new Int32Array(o.orgs);
  let capped = 0;
  for (let k = 0; k < o.orgs; k++) {
    const bytes = (storageW[k] / sumS) * o.totalGb * GB;
    if (bytes > quota) capped++;
    storage[k] = Math.min(bytes, quota);
    load[k] = loadW[k] / sumL;
    // The map has no closed shards yet: every logical shard is open to the first organizations.
    logical[k] = placeOrganization(random, { physical: o.databases, moved: {}, closed: [] });
  }
  return { storage, load, logical, capped };
}

/** Per logical shard totals. */
export function logicalTotals(pop) {
  const storage = new Float64Array(LOGICAL_SHARDS);
  const load = new Float64Array(LOGICAL_SHARDS);
  const orgs = new Int32Array(LOGICAL_SHARDS);
  for (let k = 0; k < pop.logical.length; k++) {
    const l = pop.logical[k];
    storage[l] += pop.storage[k];
    load[l] += pop.load[k];
    orgs[l]++;
  }
  return { storage, load, orgs };
}

/** The databases' contents under `placement` (logical → physical index). */
export function databases(totals, placement, count) {
  const dbs = Array.from({ length: count }, (_, index) => ({ index, storage: 0, load: 0, shards: [] }));
  for (let l = 0; l < LOGICAL_SHARDS; l++) {
    const db = dbs[placement[l]];
    db.storage += totals.storage[l];
    db.load += totals.load[l];
    db.shards.push(l);
  }
  return dbs;
}

/**
 * Greedy moves. While a database holding more than one logical shard is above `limit` (2× the mean query load),
 * keep its hottest logical shard and move the next hottest to the least-loaded database that stays within the
 * limit and the fill target; while a database is above the fill target, move the smallest of its logical shards
 * that brings it under (else its largest) to the database with the most free room. Each move is one
 * `npm run shard:move` (docs/scaling.md "Moving a logical shard"). Returns the new placement and the moves.
 */
export function rebalance(totals, placement, count, { fillBytes, limit }) {
  const next = Int32Array.from(placement);
  const moves = [];
  const dbs = databases(totals, next, count);
  const move = (l, from, to, why) => {
    const a = dbs[from],
      b = dbs[to];
    a.shards.splice(a.shards.indexOf(l), 1);
    a.storage -= totals.storage[l];
    a.load -= totals.load[l];
    b.shards.push(l);
    b.storage += totals.storage[l];
    b.load += totals.load[l];
    next[l] = to;
    moves.push({ logical: l, from, to, bytes: totals.storage[l], why });
  };
  const target = (l, from, prefer) => {
    const fits = dbs.filter((d) => d.index !== from && d.storage + totals.storage[l] <= fillBytes);
    const within = fits.filter((d) => d.load + totals.load[l] <= limit);
    const pool = within.length > 0 ? within : fits;
    if (pool.length === 0) return null;
    return pool.reduce((best, d) => (prefer(d) < prefer(best) ? d : best));
  };
  // One move per pass: the first that fits, trying the hottest database first and, in it, its next hottest shards
  // in turn (a shard too big for any database's room gives way to a smaller one); stop when no move is possible.
  const firstMove = () => {
    const hot = dbs.filter((d) => d.shards.length > 1 && d.load > limit).sort((x, y) => y.load - x.load);
    for (const d of hot) {
      const [, ...rest] = [...d.shards].sort((x, y) => totals.load[y] - totals.load[x]);
      for (const l of rest) {
        const to = target(l, d.index, (t) => t.load);
        if (to) return () => move(l, d.index, to.index, "load");
      }
    }
    const full = dbs.filter((d) => d.shards.length > 1 && d.storage > fillBytes).sort((x, y) => y.storage - x.storage);
    for (const d of full) {
      const excess = d.storage - fillBytes;
      const bySize = [...d.shards].sort((x, y) => totals.storage[x] - totals.storage[y]);
      const first = bySize.findIndex((s) => totals.storage[s] >= excess);
      const candidates = first < 0 ? bySize.reverse() : [...bySize.slice(first), ...bySize.slice(0, first).reverse()];
      for (const l of candidates) {
        const to = target(l, d.index, (t) => t.storage);
        if (to) return () => move(l, d.index, to.index, "storage");
      }
    }
    return null;
  };
  for (let guard = 0; guard < 10 * LOGICAL_SHARDS; guard++) {
    const step = firstMove();
    if (!step) break;
    step();
  }
  return { placement: next, moves };
}

/** Linear interpolation between closest ranks (so p99 of 96 databases is not simply the maximum). */
function quantile(sorted, q) {
  const at = q * (sorted.length - 1);
  const lo = Math.floor(at);
  const hi = Math.min(sorted.length - 1, lo + 1);
  return sorted[lo] + (sorted[hi] - sorted[lo]) * (at - lo);
}

/** min / p50 / p99 / max of one measure over the databases, and how many are above 2× the mean. */
export function spread(values) {
  const sorted = [...values].sort((a, b) => a - b);
  const mean = sorted.reduce((s, v) => s + v, 0) / sorted.length;
  return {
    min: sorted[0],
    p50: quantile(sorted, 0.5),
    p99: quantile(sorted, 0.99),
    max: sorted[sorted.length - 1],
    mean,
    above2x: sorted.filter((v) => v > 2 * mean).length,
  };
}

/** The done-when checks on a set of databases. */
export function violations(dbs, limit) {
  const out = [];
  for (const d of dbs) {
    if (d.load > limit && d.shards.length !== 1)
      out.push(`SHARD_${d.index}: ${(d.load * 100).toFixed(2)}% of queries on ${d.shards.length} logical shards`);
    if (d.storage > DATABASE_BYTES) out.push(`SHARD_${d.index}: ${(d.storage / GB).toFixed(2)} GB`);
  }
  return out;
}

/** The whole simulation: population, placement, balance before, greedy moves, balance after. */
export function simulate(opts = {}) {
  const o = { ...DEFAULTS, ...opts };
  const map = { physical: o.databases, moved: {}, closed: [] };
  const problems = shardMapProblems(map);
  if (problems.length > 0) throw new Error(`--databases ${o.databases}: ${problems.join("; ")}`);
  const pop = population(o);
  const totals = logicalTotals(pop);
  const placement = Int32Array.from({ length: LOGICAL_SHARDS }, (_, l) => physicalIndexOf(l, map));
  const before = databases(totals, placement, o.databases);
  const limit = 2 / o.databases; // query shares sum to 1
  const { placement: after, moves } = rebalance(totals, placement, o.databases, {
    fillBytes: o.fillTarget * DATABASE_BYTES,
    limit,
  });
  const afterDbs = databases(totals, after, o.databases);
  // Logical shards left alone on a database above the limit are closed to new organizations.
  const closed = afterDbs.filter((d) => d.shards.length === 1 && d.load > limit).map((d) => d.shards[0]);
  return {
    options: o,
    pop,
    totals,
    before,
    after: afterDbs,
    moves,
    closed,
    limit,
    violationsBefore: violations(before, limit),
    violationsAfter: violations(afterDbs, limit),
  };
}

const pct = (x) => `${(x * 100).toFixed(2)}%`;
const gb = (x) => `${(x / GB).toFixed(2)} GB`;

function balanceRows(dbs) {
  const s = spread(dbs.map((d) => d.storage));
  const q = spread(dbs.map((d) => d.load));
  return [
    {
      measure: "storage",
      min: gb(s.min),
      p50: gb(s.p50),
      p99: gb(s.p99),
      max: gb(s.max),
      "max ÷ mean": (s.max / s.mean).toFixed(2),
      "DBs > 2× mean": s.above2x,
      "DBs > 10 GB": dbs.filter((d) => d.storage > DATABASE_BYTES).length,
    },
    {
      measure: "query share",
      min: pct(q.min),
      p50: pct(q.p50),
      p99: pct(q.p99),
      max: pct(q.max),
      "max ÷ mean": (q.max / q.mean).toFixed(2),
      "DBs > 2× mean": q.above2x,
      "DBs > 10 GB": "",
    },
  ];
}

// The statements below mirror the shapes of src/services/tables/rows.ts (as scripts/bench/rows.mjs does); they are
// timed, not used to change data the service reads.
const INSERT_ROWS = `INSERT INTO rows (id, table_id, project_id, workspace_id, owner_id, origin_id, seq, is_deleted, created_at, updated_at)
  SELECT j.value, ?1, ?2, ?3, ?4, '', (SELECT COALESCE(MAX(seq), 0) FROM rows WHERE table_id = ?1) + j.key + 1, 0, ?5, ?5
  FROM json_each(?6) j`;
const INSERT_CELLS = `INSERT INTO cells (id, table_id, row_id, column_id, workspace_id, origin_id, is_identifier, data, is_deleted, created_at, updated_at)
  SELECT j.value ->> 0, ?1, j.value ->> 1, j.value ->> 2, ?2, '', j.value ->> 3, j.value -> 4, 0, ?3, ?3
  FROM json_each(?4) j`;
const ROW_WITH_CELLS = `SELECT r.*, (SELECT json_group_object(c.column_id, json(c.data)) FROM cells c WHERE c.row_id = r.id) AS cells
  FROM rows r WHERE r.id = ?1 AND r.is_deleted = 0`;
const PAGE = `SELECT r.*, (SELECT json_group_object(c.column_id, json(c.data)) FROM cells c WHERE c.row_id = r.id) AS cells
  FROM rows r WHERE r.table_id = ?1 AND r.is_deleted = 0 AND (r.seq, r.id) > (?2, ?3) ORDER BY r.seq, r.id LIMIT ?4`;
const TOKEN =
  "SELECT t.user_id, t.expires_at, u.email FROM access_tokens t JOIN users u ON u.id = t.user_id WHERE t.token_hash = ?1";
const UPDATE_CELL = "UPDATE cells SET data = ?1, updated_at = ?2 WHERE row_id = ?3 AND column_id = ?4";

/** Time (ms) per statement of our typical statements on a local D1: median, min and max of 5 tries. */
export async function measureQueryTimes(n = 100) {
  const { monotonicFactory } = await import("ulidx");
  const { rawD1, seedRawTable } = await import("./lib.mjs");
  const ulid = monotonicFactory();
  const raw = await rawD1();
  try {
    const db = raw.db;
    const columns = Array.from({ length: 5 }, () => ulid());
    const ids = await seedRawTable(db, ulid, (ids, t) =>
      columns.map((id, i) =>
        db
          .prepare(
            "INSERT INTO columns (id, table_id, project_id, workspace_id, name, slug, is_identifier, data, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
          )
          .bind(
            id,
            ids.table,
            ids.project,
            ids.ws,
            `c${i}`,
            `c${i}`,
            i === 0 ? 1 : 0,
            JSON.stringify({ type: "text" }),
            t,
            t,
          ),
      ),
    );
    const rowIds = [];
    for (let b = 0; b < 10; b++) {
      const t = Date.now();
      const batch = Array.from({ length: 1000 }, () => ulid());
      const cells = batch.flatMap((rowId, i) =>
        columns.map((c, k) => JSON.stringify([ulid(), rowId, c, k === 0 ? 1 : 0, `value ${b * 1000 + i}/${k}`])),
      );
      await db.batch([
        db.prepare(INSERT_ROWS).bind(ids.table, ids.project, ids.ws, ids.user, t, JSON.stringify(batch)),
        db.prepare(INSERT_CELLS).bind(ids.table, ids.ws, t, `[${cells.join(",")}]`),
      ]);
      rowIds.push(...batch);
    }
    await db
      .prepare(
        "INSERT INTO access_tokens (id, user_id, name, token_hash, created_at) VALUES (?, ?, 'bench', 'bench-hash', ?)",
      )
      .bind(ulid(), ids.user, Date.now())
      .run();
    const random = prng(99);
    const pick = () => rowIds[Math.floor(random() * rowIds.length)];
    const kinds = {
      "token check (directory)": () => [db.prepare(TOKEN).bind("bench-hash")],
      "one row with its cells": () => [db.prepare(ROW_WITH_CELLS).bind(pick())],
      "page of 100 rows with cells": () => [db.prepare(PAGE).bind(ids.table, Math.floor(random() * 9000), "", 100)],
      "update one cell": () => [db.prepare(UPDATE_CELL).bind(JSON.stringify("x"), Date.now(), pick(), columns[1])],
      "insert one row + 5 cells": () => {
        const rowId = ulid();
        const t = Date.now();
        const cells = columns.map((c, k) => JSON.stringify([ulid(), rowId, c, k === 0 ? 1 : 0, "new"]));
        return [
          db.prepare(INSERT_ROWS).bind(ids.table, ids.project, ids.ws, ids.user, t, JSON.stringify([rowId])),
          db.prepare(INSERT_CELLS).bind(ids.table, ids.ws, t, `[${cells.join(",")}]`),
        ];
      },
    };
    // Locally meta.duration counts whole milliseconds, too coarse for sub-millisecond statements; so each kind runs
    // as batches of n and 2n statements (executed back to back inside the database, as D1 runs them), and the time
    // per statement is the slope, (batch of 2n − batch of n) / n in wall time (n = 100; 10 for pages), which drops the
    // fixed cost of a call; the median of 5 tries.
    const out = {};
    for (const [name, make] of Object.entries(kinds)) {
      const per = [];
      const count = name.startsWith("page") ? Math.max(2, Math.round(n / 10)) : n;
      const timed = async (k) => {
        const stmts = Array.from({ length: k }, make).flat();
        const t0 = performance.now();
        await db.batch(stmts);
        return performance.now() - t0;
      };
      for (let round = 0; round < 5; round++) {
        const single = await timed(count);
        const double = await timed(2 * count);
        per.push((double - single) / count);
      }
      per.sort((a, b) => a - b);
      out[name] = { median: quantile(per, 0.5), min: per[0], max: per[per.length - 1] };
    }
    return out;
  } finally {
    await raw.dispose();
  }
}

function parseArgs(args) {
  const opts = {};
  if (args.includes("--measure")) opts.measure = true;
  const names = {
    "--orgs": "orgs",
    "--databases": "databases",
    "--seed": "seed",
    "--total-gb": "totalGb",
    "--qps": "qps",
    "--query-ms": "queryMs",
  };
  for (let i = 0; i < args.length; i++) {
    const key = names[args[i]];
    if (!key) continue;
    const value = Number(args[++i]);
    if (!Number.isFinite(value) || value <= 0) throw new Error(`${args[i - 1]} needs a positive number`);
    opts[key] = value;
  }
  return opts;
}

export default async function shards(args = []) {
  const opts = parseArgs(args);
  if (opts.measure) {
    const times = await measureQueryTimes();
    console.log(
      "time per statement on a local D1 (slope between batches of 100 and 200, pages 10 and 20; table of 10,000 rows × 5 cells):",
    );
    console.table(
      Object.entries(times).map(([statement, t]) => ({
        statement,
        "median ms": t.median.toFixed(3),
        "min ms": t.min.toFixed(3),
        "max ms": t.max.toFixed(3),
      })),
    );
    // The capacity lines use the slowest median of the single-record statements a request typically makes.
    opts.queryMs = Math.max(
      times["one row with its cells"].median,
      times["update one cell"].median,
      times["token check (directory)"].median,
    );
    delete opts.measure;
  }
  const t0 = performance.now();
  const r = simulate(opts);
  const o = r.options;
  const ms = performance.now() - t0;
  const totalBytes = r.before.reduce((s, d) => s + d.storage, 0);
  console.log(
    `${o.orgs.toLocaleString("en")} organizations (Zipf storage s=${o.storageZipf}, load s=${o.loadZipf}; ${o.totalGb} GB in all, ` +
      `quota ${o.orgQuotaGb} GB per organization, ${r.pop.capped} capped) on ${LOGICAL_SHARDS} logical shards over ${o.databases} databases; seed ${o.seed}.`,
  );
  // Loops, not Math.max(...xs): a million organizations overflow the argument list.
  const maxOf = (xs) => xs.reduce((m, x) => (x > m ? x : m), -Infinity);
  const topOrg = maxOf(r.pop.load);
  const topShard = maxOf(r.totals.load);
  console.log(
    `hottest organization ${pct(topOrg)} of all queries, hottest logical shard ${pct(topShard)}; mean per database ${pct(1 / o.databases)} ` +
      `(2× = ${pct(r.limit)}); ${gb(totalBytes)} stored, mean ${gb(totalBytes / o.databases)} per database.`,
  );
  console.log("\nbefore moves (placement rule only):");
  console.table(balanceRows(r.before));
  const bytesMoved = r.moves.reduce((s, m) => s + m.bytes, 0);
  const byWhy = (w) => r.moves.filter((m) => m.why === w).length;
  console.log(
    `\nafter ${r.moves.length} greedy moves of logical shards (${byWhy("load")} for load, ${byWhy("storage")} for storage; ${gb(bytesMoved)} copied):`,
  );
  console.table(balanceRows(r.after));
  const hot = r.after.filter((d) => d.load > r.limit).sort((a, b) => b.load - a.load);
  console.log(
    `databases above 2× the mean query load after the moves: ${hot.length}, each holding one logical shard alone ` +
      `(${hot.map((d) => `SHARD_${d.index}=${d.shards[0]}:${pct(d.load)}`).join(", ") || "none"}); closed to new organizations: ${r.closed.length}.`,
  );
  const qMax = (ds) => maxOf(ds.map((d) => d.load));
  const sMax = (ds) => maxOf(ds.map((d) => d.storage));
  const capacity = 1000 / o.queryMs;
  console.log(
    `at ${o.qps.toLocaleString("en")} queries/s for the whole population and ${o.queryMs} ms per query (≤ ${capacity.toFixed(0)} queries/s per database), ` +
      `the busiest database needs ${(qMax(r.before) * o.qps).toFixed(0)} → ${(qMax(r.after) * o.qps).toFixed(0)} queries/s before → after the moves.`,
  );
  const shared = (ds) => maxOf([0, ...ds.filter((d) => d.shards.length > 1).map((d) => d.load)]) * o.databases;
  const ok = r.violationsAfter.length === 0;
  console.log(
    `\nspread: busiest database ${(qMax(r.before) * o.databases).toFixed(2)}× → ${(qMax(r.after) * o.databases).toFixed(2)}× the mean query load, ` +
      `busiest database holding more than one logical shard ${shared(r.before).toFixed(2)}× → ${shared(r.after).toFixed(2)}×, ` +
      `fullest ${gb(sMax(r.before))} → ${gb(sMax(r.after))} (mean ${gb(totalBytes / o.databases)}). ` +
      `${ok ? "✓ done-when holds" : `✗ ${r.violationsAfter.length} violations: ${r.violationsAfter.join("; ")}`} (${ms.toFixed(0)} ms).`,
  );
  if (!ok) process.exitCode = 1;
}
