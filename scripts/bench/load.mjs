// npm run bench -- load: requests per second and p99 of E10, E12 and E16 beside GET /health on one wrangler dev,
// measured in alternating rounds so both see the same machine, and beside a floor: the same D1 and Rate Limiting calls
// as E10 with no application code (scripts/bench/floor-worker.mjs, its own wrangler dev on a copy of the state).
import { cpSync, mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { freshState, printTable, startFloor } from "./lib.mjs";
import { drive, ENDPOINTS, percentile, seedRequestPath, startApi } from "./requestpath.mjs";

export default async function () {
  const rounds = Number(process.env.BENCH_LOAD_ROUNDS || 3);
  const ms = Number(process.env.BENCH_LOAD_MS || 2500);
  const concurrency = Number(process.env.BENCH_LOAD_CONCURRENCY || 16);
  const dir = freshState();
  let api = await startApi({ dir });
  const floorDir = mkdtempSync(path.join(os.tmpdir(), "cws-floor-"));
  let floor = null;
  try {
    const identities = await seedRequestPath(api);
    // The same users with a scoped token each (docs/api-guide.md › Tokens and scopes): documents:read on their project.
    const scopedIdentities = await Promise.all(
      identities.map(async (u) => {
        const issued = await api.call("POST", "/token", {
          token: u.token,
          body: { name: "scoped bench", scopes: ["documents:read"], resources: [u.projectId] },
        });
        return { ...u, token: issued.data.token };
      }),
    );
    // The floor reads the same rows from a copy of the seeded state (two wrangler dev on one state would contend).
    await api.stop();
    cpSync(dir, floorDir, { recursive: true });
    // One after the other: two wrangler dev starting at once contend for their shared defaults.
    api = await startApi({ dir });
    floor = await startFloor(floorDir);
    // Warm every token (lastUsedAt) and the isolate.
    await drive(api.url, ENDPOINTS["E10 GET /document/{id}"], identities, { concurrency: 4, ms: 1000 });
    await drive(api.url, ENDPOINTS["E10 GET /document/{id}"], scopedIdentities, { concurrency: 4, ms: 1000 });
    await drive(floor.url, FLOOR_PATH, identities, { concurrency: 4, ms: 1000 });
    const targets = [
      ...Object.entries(ENDPOINTS).map(([name, pathOf]) => [name, api.url, pathOf, identities]),
      [SCOPED, api.url, ENDPOINTS["E10 GET /document/{id}"], scopedIdentities],
      [FLOOR, floor.url, FLOOR_PATH, identities],
    ];
    const totals = Object.fromEntries(
      targets.map(([k]) => [k, { latencies: [], requests: 0, seconds: 0, failures: 0, trips: [] }]),
    );
    for (let r = 0; r < rounds; r++) {
      for (const [name, url, pathOf, ids] of targets) {
        const res = await drive(url, pathOf, ids, { concurrency, ms });
        const t = totals[name];
        t.latencies.push(...res.latencies);
        t.requests += res.latencies.length;
        t.seconds += res.seconds;
        t.failures += res.failures;
        t.trips.push(...res.trips);
      }
    }
    const health = totals["GET /health"];
    const floorRps = totals[FLOOR].requests / totals[FLOOR].seconds;
    const healthRps = health.requests / health.seconds;
    const healthP99 = percentile(health.latencies, 99);
    printTable(
      `Throughput under load (${concurrency} concurrent callers, ${rounds}×${ms} ms per endpoint, ${identities.length} tokens)`,
      Object.entries(totals).map(([name, t]) => {
        const rps = t.requests / t.seconds;
        const p99 = percentile(t.latencies, 99);
        return {
          endpoint: name,
          "req/s": rps.toFixed(0),
          "× /health req/s": (rps / healthRps).toFixed(2),
          "× floor req/s": (rps / floorRps).toFixed(2),
          "p50 ms": percentile(t.latencies, 50).toFixed(1),
          "p99 ms": p99.toFixed(1),
          "p99 × /health": (p99 / healthP99).toFixed(2),
          "D1 round trips (max)": Math.max(...t.trips),
          "non-200": t.failures,
        };
      }),
    );
    const full = totals["E10 GET /document/{id}"];
    const scoped = totals[SCOPED];
    console.log(
      `scoped token / full token on E10: req/s ${(scoped.requests / scoped.seconds / (full.requests / full.seconds)).toFixed(3)}×, ` +
        `p50 ${(percentile(scoped.latencies, 50) / percentile(full.latencies, 50)).toFixed(3)}× (issue 39: within 1.05×)`,
    );
  } finally {
    await Promise.all([api.stop(), floor?.stop()]);
    rmSync(dir, { recursive: true, force: true });
    rmSync(floorDir, { recursive: true, force: true });
  }
}

/** E10 with each user's scoped token (documents:read on its project) instead of its full token. */
const SCOPED = "E10 GET /document/{id} (scoped token)";

/** The floor's row (scripts/bench/floor-worker.mjs): E10's D1 and Rate Limiting calls with no application code. */
const FLOOR = "floor: E10's D1 + limiter calls alone";
const FLOOR_PATH = (u) => `/floor/document/${u.docId}`;
