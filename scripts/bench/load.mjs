// npm run bench -- load: requests per second and p99 of E10, E12 and E16 beside GET /health on one wrangler dev,
// measured in alternating rounds so both see the same machine. Targets (issue 9): ≥ 0.8× the static throughput,
// p99 ≤ 2× static.
import { printTable } from "./lib.mjs";
import { drive, ENDPOINTS, percentile, seedRequestPath, startApi } from "./requestpath.mjs";

export default async function () {
  const rounds = Number(process.env.BENCH_LOAD_ROUNDS || 3);
  const ms = Number(process.env.BENCH_LOAD_MS || 2500);
  const concurrency = Number(process.env.BENCH_LOAD_CONCURRENCY || 16);
  const api = await startApi();
  try {
    const identities = await seedRequestPath(api);
    // Warm every token (lastUsedAt) and the isolate.
    await drive(api.url, ENDPOINTS["E10 GET /document/{id}"], identities, { concurrency: 4, ms: 1000 });
    const totals = Object.fromEntries(Object.keys(ENDPOINTS).map((k) => [k, { latencies: [], requests: 0, seconds: 0, failures: 0, trips: [] }]));
    for (let r = 0; r < rounds; r++) {
      for (const [name, pathOf] of Object.entries(ENDPOINTS)) {
        const res = await drive(api.url, pathOf, identities, { concurrency, ms });
        const t = totals[name];
        t.latencies.push(...res.latencies);
        t.requests += res.latencies.length;
        t.seconds += res.seconds;
        t.failures += res.failures;
        t.trips.push(...res.trips);
      }
    }
    const health = totals["GET /health"];
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
          "p50 ms": percentile(t.latencies, 50).toFixed(1),
          "p99 ms": p99.toFixed(1),
          "p99 × /health": (p99 / healthP99).toFixed(2),
          "D1 round trips (max)": Math.max(...t.trips),
          "non-200": t.failures,
        };
      }),
    );
  } finally {
    await api.stop();
  }
}
