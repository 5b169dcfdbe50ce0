// npm run bench -- latency: a distant database modelled by delaying every D1 round trip by 50 ms (the bench-only
// D1_LATENCY_MS var; off by default) and the p50 of each endpoint beside its round trips. Target (issue 9): every
// single-record read's p50 ≤ 80 ms.
import { median, printTable } from "./lib.mjs";
import { ENDPOINTS, seedRequestPath, startApi } from "./requestpath.mjs";

const EXTRA = {
  "E20 GET /access/document/{id}": (u) => `/access/document/${u.docId}`,
  "GET /project/{id}": (u) => `/project/${u.projectId}`,
  "GET /workspace/{id}": (u) => `/workspace/${u.workspaceId}`,
  "GET /me": () => "/me",
  // The caller's organizations: the directory's index of memberships, read beside the token (docs/scaling.md).
  "GET /organization/all": () => "/organization/all",
};

export default async function () {
  const delay = Number(process.env.BENCH_D1_DELAY_MS || 50);
  const runs = Number(process.env.BENCH_LATENCY_RUNS || 15);
  const api = await startApi({ vars: { D1_LATENCY_MS: String(delay) } });
  try {
    const identities = (await seedRequestPath(api, { users: 2, tokensPerUser: 1 })).slice(0, 1);
    const u = identities[0];
    const rows = [];
    for (const [name, pathOf] of Object.entries({ ...ENDPOINTS, ...EXTRA })) {
      const samples = [];
      let trips = 0;
      for (let i = 0; i < runs + 1; i++) {
        const t0 = performance.now();
        const res = await fetch(api.url + pathOf(u), { headers: { authorization: `Bearer ${u.token}` } });
        await res.arrayBuffer();
        if (res.status !== 200) throw new Error(`${name} answered ${res.status}`);
        if (i > 0) samples.push(performance.now() - t0);
        trips = Number(res.headers.get("x-d1-round-trips"));
      }
      rows.push({
        endpoint: name,
        "D1 round trips": trips,
        [`p50 ms (each round trip +${delay} ms)`]: median(samples).toFixed(1),
      });
    }
    printTable(`Latency with a distant database (every D1 round trip delayed ${delay} ms)`, rows);
  } finally {
    await api.stop();
  }
}
