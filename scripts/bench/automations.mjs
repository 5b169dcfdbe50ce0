// Automations (docs/api-guide.md › Automations, published portals, collaborative editing) under wrangler dev (the same local runtime npm start uses), in one run:
//  1. event → run finished latency of a one-action automation (row.created → notify), p50/p99 over BENCH_AUTO_EVENTS
//     rows, from the row's createdAt to the run's finishedAt (both server clocks);
//  2. runs/s with 1 000 queued runs (a bulk insert of 1 000 rows fires a row.create automation 1 000 times), beside
//     1 000 raw single-row INSERTs on raw D1 of the same local engine;
//  3. the scheduled handler claiming and enqueueing 10 000 due automations (GET /__scheduled of --test-scheduled),
//     and 1 000 for comparison: its D1 round trips do not depend on the count (one claim UPDATE … RETURNING and one
//     batch, asserted by test/routes/automations/schedules.test.ts), so the time should grow far less than tenfold.
//   npm run bench -- automations
import { monotonicFactory } from "ulidx";
import {
  ADMIN_TOKEN,
  freshState,
  openD1,
  printTable,
  rawD1,
  seedRawTable,
  seedUser,
  startApi,
  suffixBeside,
} from "./lib.mjs";

const EVENTS = Number(process.env.BENCH_AUTO_EVENTS) || 100;
const QUEUED = 1000;
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

function pct(xs, p) {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.ceil((p / 100) * s.length) - 1)];
}

async function allRuns(api, token, automationId, want, timeoutMs) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const out = [];
    let cursor;
    do {
      const q = `limit=100${cursor ? `&cursor=${cursor}` : ""}`;
      const page = await api.call("GET", `/automation/${automationId}/runs?${q}`, { token });
      out.push(...page.data);
      cursor = page.nextCursor;
    } while (cursor);
    const done = out.filter((r) => r.status !== "queued" && r.status !== "running");
    if (done.length >= want || Date.now() > deadline) return done;
    await sleep(250);
  }
}

async function latencyAndThroughput() {
  const api = await startApi();
  try {
    const u = await seedUser(api);
    const table = (
      await api.call("POST", "/table", { token: u.token, body: { projectId: u.projectId, name: "Events" } })
    ).data;
    const a = (
      await api.call("POST", "/automation", {
        token: u.token,
        body: {
          projectId: u.projectId,
          name: "Latency",
          triggers: [{ event: "row.created", filter: { tableId: table._id } }],
          actions: [{ spec: { kind: "notify", title: "row" } }],
        },
      })
    ).data;
    const created = new Map();
    for (let i = 0; i < EVENTS; i++) {
      const r = await api.call("POST", `/table/${table._id}/row`, { token: u.token, body: { cells: {} } });
      created.set(r.data.row._id, r.data.row.createdAt);
      await sleep(20);
    }
    const runs = await allRuns(api, u.token, a._id, EVENTS, 60_000);
    const lat = runs
      .filter((r) => created.has(r.trigger.rowId))
      .map((r) => r.finishedAt - created.get(r.trigger.rowId));

    // Throughput: 1 000 runs queued at once by one bulk insert, each run creating one row in another table.
    const src = (
      await api.call("POST", "/table", { token: u.token, body: { projectId: u.projectId, name: "Bulk source" } })
    ).data;
    const dst = (
      await api.call("POST", "/table", { token: u.token, body: { projectId: u.projectId, name: "Bulk target" } })
    ).data;
    const b = (
      await api.call("POST", "/automation", {
        token: u.token,
        body: {
          projectId: u.projectId,
          name: "Throughput",
          triggers: [{ event: "row.created", filter: { tableId: src._id } }],
          actions: [{ spec: { kind: "row.create", tableId: dst._id } }],
        },
      })
    ).data;
    const t0 = Date.now();
    await api.call("POST", `/table/${src._id}/rows`, {
      token: u.token,
      body: { rows: Array.from({ length: QUEUED }, () => ({ cells: {} })) },
    });
    const done = await allRuns(api, u.token, b._id, QUEUED, 300_000);
    const lastFinish = Math.max(...done.map((r) => r.finishedAt));
    const runsPerSec = (done.length / (lastFinish - t0)) * 1000;
    return { lat, runsPerSec, finished: done.length, succeeded: done.filter((r) => r.status === "succeeded").length };
  } finally {
    await api.stop();
  }
}

async function rawInsertsPerSec() {
  const raw = await rawD1();
  const ulid = monotonicFactory();
  try {
    const db = raw.db;
    const ids = await seedRawTable(db, ulid);
    const insert = `INSERT INTO rows (id, table_id, project_id, workspace_id, owner_id, origin_id, seq, is_deleted, created_at, updated_at)
      VALUES (?1, ?2, ?3, ?4, ?5, '', (SELECT COALESCE(MAX(seq), 0) + 1 FROM rows WHERE table_id = ?2), 0, ?6, ?6)`;
    const t0 = performance.now();
    // Ten at a time, like the Queue consumer's concurrent messages.
    for (let i = 0; i < QUEUED; i += 10) {
      await Promise.all(
        Array.from({ length: 10 }, () =>
          db.prepare(insert).bind(ulid(), ids.table, ids.project, ids.ws, ids.user, Date.now()).run(),
        ),
      );
    }
    return (QUEUED / (performance.now() - t0)) * 1000;
  } finally {
    await raw.dispose();
  }
}

async function claimTime(count) {
  const dir = freshState();
  let api = await startApi({ dir });
  const u = await seedUser(api);
  await api.stop();
  // Written straight into the shard database of the user's organization, with ids on its shard (a 20-character
  // ULID prefix, the index, the shard digits: docs/scaling.md "Id format") so the runs they start route there.
  const { shard, dispose } = await openD1(dir);
  const db = shard(u.workspaceId);
  const prefix = monotonicFactory()().slice(0, 20);
  const now = Date.now();
  const ids = Array.from({ length: count }, (_, i) => i);
  for (let i = 0; i < ids.length; i += 2000) {
    await db
      .prepare(
        `INSERT INTO automations (id, public_id, project_id, workspace_id, owner_id, created_by, name, scope, triggers, actions, "references", behavior, notify, enabled, webhook_secret, next_run_at, created_at, updated_at)
         SELECT ?6 || printf('%06d', value) || ?7, 'p' || value, ?1, ?2, ?3, ?3, 'Due', '{"projectIds":[]}', '[{"cron":"0 0 1 1 *","timezone":"UTC"}]', '[]', '[]',
           '{"maxDurationMs":30000,"operationBudget":1000,"maxAffectedRows":1000,"externalWriteBudget":10,"allowDocumentWrites":false}', '{"inApp":false,"email":false}', 1, 'whsec_x', ?4, ?4, ?4
         FROM json_each(?5)`,
      )
      .bind(
        u.projectId,
        u.workspaceId,
        u.userId,
        now - 60_000,
        JSON.stringify(ids.slice(i, i + 2000)),
        prefix,
        suffixBeside(u.workspaceId),
      )
      .run();
  }
  await dispose();
  api = await startApi({ dir, args: ["--test-scheduled"] });
  try {
    // Warm the Worker (first-request compilation) and the handler itself on an empty tick of another cron.
    await fetch(`${api.url}/health`).then((r) => r.arrayBuffer());
    const t0 = performance.now();
    const res = await fetch(`${api.url}/__scheduled?cron=${encodeURIComponent("* * * * *")}`);
    await res.text();
    const ms = performance.now() - t0;
    return { ms, status: res.status };
  } finally {
    await api.stop();
  }
}

export default async function main() {
  const { lat, runsPerSec, finished, succeeded } = await latencyAndThroughput();
  const raw = await rawInsertsPerSec();
  const claim1k = await claimTime(1_000);
  const claim10k = await claimTime(10_000);
  printTable("Automations", [
    { measure: `event → run finished, p50 (${lat.length} runs)`, value: `${Math.round(pct(lat, 50))} ms`, target: "" },
    { measure: "event → run finished, p99", value: `${Math.round(pct(lat, 99))} ms`, target: "≤ 2000 ms" },
    {
      measure: `runs/s, ${QUEUED} queued (${succeeded}/${finished} succeeded)`,
      value: runsPerSec.toFixed(0),
      target: "",
    },
    { measure: `raw single-row inserts/s (${QUEUED}, 10 at a time)`, value: raw.toFixed(0), target: "" },
    { measure: "runs/s ÷ raw inserts/s", value: (runsPerSec / raw).toFixed(2), target: "≥ 0.5" },
    { measure: "scheduled: claim + enqueue 1 000 due", value: `${Math.round(claim1k.ms)} ms`, target: "" },
    { measure: "scheduled: claim + enqueue 10 000 due", value: `${Math.round(claim10k.ms)} ms`, target: "≤ 2000 ms" },
    { measure: "scheduled: D1 round trips", value: "2 (any count)", target: "independent of the count" },
  ]);
}
