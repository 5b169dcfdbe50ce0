// The worst allowed automation cascade (docs/api-guide.md, "Cascades are bounded as a whole"), under wrangler dev,
// in one run:
//  - tenant A sets up the widest fan-out the limits allow on one table: two automations "on row created in T, create
//    50 rows in T" (50 actions each, the longest time budget) and one "on row created in T, send 50 webhooks"
//    (externalWriteBudget 100) to a local receiver (WEBHOOK_ALLOWED_ORIGINS);
//  - tenant B's requests (a row write and GET /me, alternating) are timed first with nothing running (idle), then
//    while A's one POST /table/{id}/row cascades;
//  - the floor: B's same requests again while the machine makes as many raw D1 row inserts as the cascade wrote,
//    spread over as long as the cascade took, through a second local D1 of the same engine (getPlatformProxy) with
//    no application code — what the machine's share of the slowdown is, beside the part that is ours;
//  - printed: rows, runs and deliveries that one write caused, B's p95 idle, during the cascade and during the raw
//    writes, the CPU the Worker's workerd process used while the cascade ran (its mean and busiest second, in
//    percent of one core: read from /proc, so less at the mercy of other load on the machine than the p95), and
//    the targets (≤ 1 000 writes and ≤ 100 deliveries per cause, B's p95 during ≤ 2× idle).
//   npm run bench -- cascade
import http from "node:http";
import { monotonicFactory } from "ulidx";
import { printTable, rawD1, seedRawTable, seedUser, startApi, workerdStats } from "./lib.mjs";

const SAMPLES = Number(process.env.BENCH_CASCADE_SAMPLES) || 100;
// ~3 requests/s per tenant: under the 300 per 60 s rate limit for the whole run.
const GAP_MS = 300;
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

function pct(xs, p) {
  const s = [...xs].sort((a, b) => a - b);
  return s.length ? s[Math.min(s.length - 1, Math.ceil((p / 100) * s.length) - 1)] : NaN;
}

/** A local webhook receiver that answers 200 and counts what it receives. */
async function receiver() {
  let received = 0;
  const server = http.createServer((req, res) => {
    req.resume();
    req.on("end", () => {
      received++;
      res.writeHead(200).end("ok");
    });
  });
  await new Promise((resolve) => server.listen(0, "127.0.0.1", resolve));
  return { url: `http://127.0.0.1:${server.address().port}`, count: () => received, close: () => server.close() };
}

async function pageAll(api, token, path) {
  const out = [];
  let cursor;
  do {
    const sep = path.includes("?") ? "&" : "?";
    const page = await api.call("GET", `${path}${sep}limit=100${cursor ? `&cursor=${cursor}` : ""}`, { token });
    out.push(...page.data);
    cursor = page.nextCursor;
  } while (cursor);
  return out;
}

/** B's requests, one after another with a short gap, until `until()` says stop or `max` are done. */
async function sampleTenant(api, b, tableId, { max, until = () => false }) {
  const times = [];
  for (let i = 0; i < max && !until(); i++) {
    const t0 = performance.now();
    if (i % 2 === 0) await api.call("POST", `/table/${tableId}/row`, { token: b.token, body: { cells: {} } });
    else await api.call("GET", "/me", { token: b.token });
    times.push(performance.now() - t0);
    await sleep(GAP_MS);
  }
  return times;
}

/** `n` raw row inserts, one statement each, evenly over `ms` (as fast as they go if slower), in two lanes like the consumer's runs. */
async function rawWrites(db, ids, ulid, n, ms) {
  const insert = `INSERT INTO rows (id, table_id, project_id, workspace_id, owner_id, origin_id, seq, is_deleted, created_at, updated_at)
    VALUES (?1, ?2, ?3, ?4, ?5, '', (SELECT COALESCE(MAX(seq), 0) + 1 FROM rows WHERE table_id = ?2), 0, ?6, ?6)`;
  const t0 = performance.now();
  let next = 0;
  await Promise.all(
    [0, 1].map(async () => {
      while (next < n) {
        const i = next++;
        const due = t0 + (i * ms) / n;
        if (due > performance.now()) await sleep(due - performance.now());
        await db.prepare(insert).bind(ulid(), ids.table, ids.project, ids.ws, ids.user, Date.now()).run();
      }
    }),
  );
}

export default async function main() {
  const hooks = await receiver();
  const api = await startApi({ vars: { WEBHOOK_ALLOWED_ORIGINS: hooks.url } });
  try {
    const a = await seedUser(api, "Cascader");
    const b = await seedUser(api, "Bystander");
    const table = (await api.call("POST", "/table", { token: a.token, body: { projectId: a.projectId, name: "T" } }))
      .data;
    const bTable = (
      await api.call("POST", "/table", { token: b.token, body: { projectId: b.projectId, name: "Mine" } })
    ).data;
    const trigger = [{ event: "row.created", filter: { tableId: table._id } }];
    const automations = [];
    for (const name of ["Fan-out 1", "Fan-out 2"]) {
      const body = {
        projectId: a.projectId,
        name,
        triggers: trigger,
        behavior: { maxDurationMs: 900_000, operationBudget: 100_000, maxAffectedRows: 100_000 },
        actions: Array.from({ length: 50 }, (_, i) => ({
          id: `c${i}`,
          spec: { kind: "row.create", tableId: table._id },
        })),
      };
      automations.push((await api.call("POST", "/automation", { token: a.token, body })).data);
    }
    automations.push(
      (
        await api.call("POST", "/automation", {
          token: a.token,
          body: {
            projectId: a.projectId,
            name: "Webhooks",
            triggers: trigger,
            behavior: { externalWriteBudget: 100 },
            actions: Array.from({ length: 50 }, (_, i) => ({
              id: `h${i}`,
              spec: { kind: "webhook", url: `${hooks.url}/hook/${i}` },
            })),
          },
        })
      ).data,
    );

    // Warm up, then B idle.
    await sampleTenant(api, b, bTable._id, { max: 10 });
    const idle = await sampleTenant(api, b, bTable._id, { max: SAMPLES });

    // The one write, and B meanwhile until the cascade has settled (no run queued or running).
    let settled = false;
    // The Worker's CPU, second by second, while the cascade runs.
    const cpuPerSecond = [];
    let lastTicks = workerdStats(api.pgid, (p) => p.ticks);
    const cpuTimer = setInterval(() => {
      const ticks = workerdStats(api.pgid, (p) => p.ticks);
      if (ticks !== null && lastTicks !== null) cpuPerSecond.push(ticks - lastTicks);
      lastTicks = ticks;
    }, 1000);
    const t0 = Date.now();
    await api.call("POST", `/table/${table._id}/row`, { token: a.token, body: { cells: {} } });
    const watcher = (async () => {
      await sleep(2_000);
      for (;;) {
        let open = 0;
        for (const auto of automations) {
          for (const status of ["queued", "running"])
            open += (await api.call("GET", `/automation/${auto._id}/runs?limit=1&status=${status}`, { token: a.token }))
              .data.length;
        }
        if (open === 0) break;
        await sleep(3_000);
      }
      settled = true;
    })();
    const during = await sampleTenant(api, b, bTable._id, { max: 2_000, until: () => settled });
    await watcher;
    const cascadeMs = Date.now() - t0;
    clearInterval(cpuTimer);
    await sleep(3_000); // deliveries queued last

    const rows = (await pageAll(api, a.token, `/table/${table._id}/rows`)).length;
    let runs = 0;
    let skipped = 0;
    let deliveries = 0;
    for (const auto of automations) {
      const list = await pageAll(api, a.token, `/automation/${auto._id}/runs`);
      runs += list.length;
      skipped += list.filter((r) => r.status === "skipped").length;
      deliveries += (await pageAll(api, a.token, `/automation/${auto._id}/deliveries`)).length;
    }
    // The floor: the same requests while a second local D1 takes as many raw inserts over the same time.
    const raw = await rawD1();
    let floor;
    try {
      const ulid = monotonicFactory();
      const ids = await seedRawTable(raw.db, ulid);
      let done = false;
      const writer = rawWrites(raw.db, ids, ulid, rows - 1, cascadeMs).finally(() => (done = true));
      floor = await sampleTenant(api, b, bTable._id, { max: 2_000, until: () => done });
      await writer;
    } finally {
      await raw.dispose();
    }
    const idleP95 = pct(idle, 95);
    const floorP95 = pct(floor, 95);
    const duringP95 = pct(during, 95);
    printTable("One write under the worst allowed cascade", [
      {
        measure: "rows written by automations (besides the 1 written by the person)",
        value: rows - 1,
        target: "≤ 1000",
      },
      { measure: "runs caused (of which skipped: cascade budget)", value: `${runs} (${skipped})`, target: "" },
      { measure: "webhook deliveries recorded / received", value: `${deliveries} / ${hooks.count()}`, target: "≤ 100" },
      { measure: "cascade duration", value: `${(cascadeMs / 1000).toFixed(1)} s`, target: "" },
      {
        measure:
          "Worker's workerd CPU while the cascade ran (B's requests and the polling included), % of one core: mean / busiest second",
        value: cpuPerSecond.length
          ? `${(cpuPerSecond.reduce((a, b) => a + b, 0) / cpuPerSecond.length).toFixed(0)} / ${Math.max(...cpuPerSecond)}`
          : "n/a",
        target: "",
      },
      { measure: `other tenant p95, idle (${idle.length} requests)`, value: `${idleP95.toFixed(1)} ms`, target: "" },
      {
        measure: `other tenant p95, during the cascade (${during.length} requests)`,
        value: `${duringP95.toFixed(1)} ms`,
        target: "≤ 2× idle",
      },
      { measure: "p95 during ÷ idle", value: (duringP95 / idleP95).toFixed(2), target: "≤ 2" },
      {
        measure: `floor: other tenant p95 during ${rows - 1} raw D1 inserts over the same time, no app code (${floor.length} requests)`,
        value: `${floorP95.toFixed(1)} ms`,
        target: "",
      },
      { measure: "floor ÷ idle (the machine's share)", value: (floorP95 / idleP95).toFixed(2), target: "" },
      { measure: "during ÷ floor (our share)", value: (duringP95 / floorP95).toFixed(2), target: "" },
    ]);
  } finally {
    await api.stop();
    hooks.close();
  }
}
