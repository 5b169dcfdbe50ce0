// npm run test:crash — Idempotency-Keys survive a crash (docs/api-guide.md, "HTTP semantics").
//
// Starts the service exactly as `npm start` does (scripts/start.mjs) on a fresh state directory, has 25 users
// (one token each: the request budget is per user) send keyed creates as fast as they can — rows, projects and
// documents in turn — kills EVERY process of the service with SIGKILL in the middle of it, starts `npm start` again
// on the same state, and retries every request it sent (same key, same body) until it gets a final answer. It fails when:
//   - a retry still answers 409 "in progress" after the 60 s lease (plus slack), or answers anything but 200;
//   - an acknowledged request's retry is not a replay of the same record;
//   - a record is missing for a request that finally answered 200 (lost), or a request's record exists twice (doubled).
//
// Settings: CRASH_RUNS (default 1; each run is a fresh state), CRASH_WRITERS (25), CRASH_AFTER_MS (how long
// after every writer has had 3 answers the kill comes; random 200–1700 ms), PORT (a free one). Exit code 0 when every run passes.
import { spawn, spawnSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { freePort, isolatedEnv, ROOT } from "./lib/proc.mjs";
import { isWorkspaceHealth } from "./lib/health.mjs";

const RUNS = Number(process.env.CRASH_RUNS ?? 1);
const WRITERS = Number(process.env.CRASH_WRITERS ?? 25);
const LEASE_MS = 60_000;
/** How long a retry may keep seeing 409 after the restart: the lease, counted from the crash, plus slack. */
const SETTLE_MS = LEASE_MS + 30_000;
const ADMIN_TOKEN = `adm_crash_${Math.random().toString(36).slice(2)}`;

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const log = (...a) => console.log("[crash]", ...a);

/** pid → { ppid, pgid } of every process. */
function processTable() {
  const res = spawnSync("ps", ["-A", "-o", "pid=,ppid=,pgid="], { encoding: "utf8" });
  const table = new Map();
  for (const line of (res.stdout ?? "").split("\n")) {
    const [pid, ppid, pgid] = line.trim().split(/\s+/).map(Number);
    if (pid) table.set(pid, { ppid, pgid });
  }
  return table;
}

/** The pids of `root` and every descendant. */
function descendants(root) {
  const table = processTable();
  const pids = new Set([root]);
  let grew = true;
  while (grew) {
    grew = false;
    for (const [pid, { ppid }] of table) {
      if (!pids.has(pid) && pids.has(ppid)) {
        pids.add(pid);
        grew = true;
      }
    }
  }
  return [...pids].filter((p) => table.has(p));
}

const alive = (pid) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

/**
 * `npm start` (scripts/start.mjs) on `port` and `persistTo`; resolves once it says it is running (its own line on its
 * own stdout: a /health answer alone could come from another server that took the port first).
 */
async function startService(port, persistTo) {
  const child = spawn(process.execPath, [path.join(ROOT, "scripts", "start.mjs")], {
    cwd: ROOT,
    env: isolatedEnv({
      PORT: String(port),
      PERSIST_TO: persistTo,
      ENV_FILE: path.join(persistTo, "env.sh"),
      DEV_VARS: path.join(persistTo, ".dev.vars"),
      ADMIN_TOKEN,
    }),
    stdio: ["ignore", "pipe", "inherit"],
    detached: true,
  });
  const base = `http://127.0.0.1:${port}`;
  let ready = false;
  let out = "";
  child.stdout.on("data", (chunk) => {
    if (ready) return;
    out += chunk.toString();
    if (out.includes(`Workspace service running on ${base}`)) ready = true;
  });
  const deadline = Date.now() + 240_000;
  while (Date.now() < deadline) {
    if (child.exitCode !== null || child.signalCode !== null)
      throw new Error(
        `npm start exited (${child.exitCode ?? child.signalCode}) before it was ready:\n${out.slice(-2000)}`,
      );
    if (ready) {
      const res = await fetch(`${base}/health`, { signal: AbortSignal.timeout(3000) }).catch(() => null);
      if (res?.ok && isWorkspaceHealth(await res.json().catch(() => null))) return { child, base };
    }
    await sleep(300);
  }
  throw new Error(`npm start was not ready on ${base} within 240 s`);
}

/** SIGKILL to every process of the service at once (the start script, wrangler, workerd, the converter and its office processes). */
async function killEverything(child) {
  const pids = descendants(child.pid);
  for (const pid of pids) {
    try {
      process.kill(pid, "SIGKILL");
    } catch {}
  }
  const deadline = Date.now() + 15_000;
  while (Date.now() < deadline && pids.some(alive)) await sleep(100);
  return pids.length;
}

/** A polite stop at the end: SIGTERM to the start script (it stops its children), then SIGKILL to what is left. */
async function stopService(child) {
  const pids = descendants(child.pid);
  try {
    process.kill(child.pid, "SIGTERM");
  } catch {}
  const deadline = Date.now() + 10_000;
  while (Date.now() < deadline && alive(child.pid)) await sleep(100);
  for (const pid of pids)
    if (alive(pid))
      try {
        process.kill(pid, "SIGKILL");
      } catch {}
}

async function api(base, method, p, { token, body, key, timeoutMs = 30_000 } = {}) {
  const headers = { "content-type": "application/json", authorization: `Bearer ${token}` };
  if (key) headers["idempotency-key"] = key;
  const res = await fetch(`${base}${p}`, {
    method,
    headers,
    body: body === undefined ? undefined : JSON.stringify(body),
    signal: AbortSignal.timeout(timeoutMs),
  });
  const text = await res.text();
  let json = null;
  try {
    json = JSON.parse(text);
  } catch {}
  return { status: res.status, body: json, text, replayed: res.headers.get("idempotent-replayed") === "true" };
}

async function setUp(base, run) {
  const writers = [];
  for (let i = 0; i < WRITERS; i++) {
    const admin = await api(base, "POST", "/admin/users", {
      token: ADMIN_TOKEN,
      body: { email: `crash-${run}-${i}-${Date.now()}@example.com`, name: `Writer ${i}` },
    });
    if (admin.status !== 200) throw new Error(`registering writer ${i}: ${admin.status} ${admin.text}`);
    const { token, workspace } = admin.body.data;
    const project = await api(base, "POST", "/project", {
      token: token.token,
      body: { workspaceId: workspace._id, name: "Crash" },
    });
    const table = await api(base, "POST", "/table", {
      token: token.token,
      body: { projectId: project.body.data._id, name: "Rows" },
    });
    if (table.status !== 200) throw new Error(`creating a table: ${table.status} ${table.text}`);
    writers.push({
      token: token.token,
      workspaceId: workspace._id,
      projectId: project.body.data._id,
      tableId: table.body.data._id,
      nameColumnId: table.body.data.columns[0]._id,
      requests: [],
    });
  }
  return writers;
}

/** The kinds of keyed create each writer sends in turn, each named by its key (the row's cell, the record's name). */
const KINDS = ["row", "project", "document"];

/** The request of a keyed create of `kind` named `key`: its path and body, and where its answer names the record. */
function createRequest(w, kind, key) {
  if (kind === "row")
    return { path: `/table/${w.tableId}/row`, body: { cells: { [w.nameColumnId]: key } }, idOf: (b) => b.data.row._id };
  if (kind === "project")
    return { path: "/project", body: { workspaceId: w.workspaceId, name: key }, idOf: (b) => b.data._id };
  return { path: "/document", body: { projectId: w.projectId, name: key, type: "DOCUMENT" }, idOf: (b) => b.data._id };
}

async function sendCreate(base, w, req, timeoutMs) {
  const { path: p, body, idOf } = createRequest(w, req.kind, req.key);
  const res = await api(base, "POST", p, { token: w.token, key: req.key, body, timeoutMs });
  return { ...res, recordId: res.status === 200 ? idOf(res.body) : undefined };
}

/** Each writer sends keyed creates (row, project, document in turn) one after another until the service dies under it. */
function writeUntilKilled(base, writers, run, stop) {
  return Promise.all(
    writers.map(async (w, wi) => {
      for (let i = 0; !stop.done; i++) {
        const req = { key: `crash-${run}-${wi}-${i}`, kind: KINDS[i % KINDS.length], outcome: "sent" };
        w.requests.push(req);
        try {
          const res = await sendCreate(base, w, req, 20_000);
          req.outcome = res.status === 200 ? "acknowledged" : `answered ${res.status}`;
          if (res.status === 200) req.recordId = res.recordId;
        } catch {
          req.outcome = "cut";
          return; // the service is gone
        }
      }
    }),
  );
}

async function retryUntilSettled(base, w, req, deadline) {
  let conflicts = 0;
  for (;;) {
    let res;
    try {
      res = await sendCreate(base, w, req, 30_000);
    } catch (err) {
      res = { status: 0, text: String(err) };
    }
    if (res.status === 409 || res.status === 0 || res.status === 429 || res.status === 503) {
      if (res.status === 409) conflicts += 1;
      if (Date.now() > deadline) return { ...res, conflicts, stuck: true };
      await sleep(2000);
      continue;
    }
    return { ...res, conflicts, stuck: false };
  }
}

async function listRows(base, w) {
  const out = [];
  let cursor;
  for (;;) {
    const q = new URLSearchParams({ limit: "1000", ...(cursor && { cursor }) });
    const res = await api(base, "GET", `/table/${w.tableId}/rows?${q}`, { token: w.token });
    if (res.status !== 200) throw new Error(`listing rows: ${res.status} ${res.text}`);
    out.push(...res.body.data);
    cursor = res.body.nextCursor ?? res.body.cursor ?? null;
    if (!cursor || res.body.data.length === 0) return out;
  }
}

/** The names of what each kind of create made for `w`: record ids by the key that named them. */
async function storedByName(base, w) {
  const byName = new Map();
  const add = (name, id) => byName.set(name, [...(byName.get(name) ?? []), id]);
  for (const row of await listRows(base, w)) add(row.cells?.[w.nameColumnId], row._id);
  for (const [p, skip] of [
    [`/project/all/${w.workspaceId}`, w.projectId],
    [`/document/all/${w.projectId}`, null],
  ]) {
    const res = await api(base, "GET", p, { token: w.token });
    if (res.status !== 200) throw new Error(`listing ${p}: ${res.status} ${res.text}`);
    for (const r of res.body.data) if (r._id !== skip) add(r.name, r._id);
  }
  return byName;
}

async function oneRun(run) {
  const persistTo = mkdtempSync(path.join(os.tmpdir(), "crash-state-"));
  const port = Number(process.env.PORT) || (await freePort());
  const problems = [];
  let service = null;
  try {
    log(`run ${run}: starting npm start on :${port} (state ${persistTo})`);
    service = await startService(port, persistTo);
    const writers = await setUp(service.base, run);
    const stop = { done: false };
    const writing = writeUntilKilled(service.base, writers, run, stop);
    // Writes must be flowing before the crash: every writer has had answers, then a random moment more.
    const started = Date.now();
    const acknowledged = () =>
      writers.filter((w) => w.requests.filter((r) => r.outcome === "acknowledged").length >= 3).length;
    while (acknowledged() < writers.length && Date.now() - started < 60_000) await sleep(50);
    await sleep(Number(process.env.CRASH_AFTER_MS) || 200 + Math.floor(Math.random() * 1500));
    const afterMs = Date.now() - started;
    const killed = await killEverything(service.child);
    const crashAt = Date.now();
    stop.done = true;
    await writing;
    const all = writers.flatMap((w) => w.requests);
    const count = (o) => all.filter((r) => r.outcome === o).length;
    const kinds = KINDS.map((k) => `${all.filter((r) => r.kind === k).length} ${k}s`).join(", ");
    log(
      `run ${run}: SIGKILL to ${killed} processes after ${afterMs} ms; ${all.length} requests (${kinds}): ${count("acknowledged")} acknowledged, ${count("cut")} cut by the crash`,
    );
    for (const r of all) if (r.outcome.startsWith("answered")) problems.push(`${r.key} ${r.outcome} before the crash`);

    service = await startService(port, persistTo);
    log(`run ${run}: restarted after ${Math.round((Date.now() - crashAt) / 1000)} s; retrying every request`);
    const deadline = crashAt + SETTLE_MS;
    let maxConflicts = 0;
    await Promise.all(
      writers.map(async (w) => {
        for (const req of w.requests) {
          const res = await retryUntilSettled(service.base, w, req, deadline);
          maxConflicts = Math.max(maxConflicts, res.conflicts);
          if (res.stuck)
            problems.push(
              `${req.key} (${req.outcome}): still ${res.status} ${res.text?.slice(0, 120)} ${Math.round((Date.now() - crashAt) / 1000)} s after the crash`,
            );
          else if (res.status !== 200)
            problems.push(`${req.key} (${req.outcome}): retry answered ${res.status} ${res.text?.slice(0, 160)}`);
          else {
            req.finalId = res.recordId;
            if (req.outcome === "acknowledged" && (!res.replayed || req.finalId !== req.recordId)) {
              problems.push(
                `${req.key} (${req.kind}): acknowledged as ${req.recordId}, retry answered ${req.finalId} (replayed: ${res.replayed})`,
              );
            }
          }
        }
      }),
    );
    for (const w of writers) {
      const byName = await storedByName(service.base, w);
      for (const req of w.requests) {
        const ids = byName.get(req.key) ?? [];
        if (ids.length > 1) problems.push(`${req.key} (${req.kind}): stored ${ids.length} times (${ids.join(", ")})`);
        if (req.finalId && !ids.includes(req.finalId))
          problems.push(`${req.key} (${req.kind}): answered ${req.finalId}, which is not stored (lost)`);
      }
      const known = new Set(w.requests.map((r) => r.key));
      for (const name of byName.keys())
        if (String(name).startsWith("crash-") && !known.has(name))
          problems.push(`a record named ${name} that no request wrote`);
    }
    log(
      `run ${run}: retries saw 409 at most ${maxConflicts} times per request; ${problems.length ? `${problems.length} problem(s)` : "no key stranded, nothing lost or doubled"}`,
    );
  } finally {
    if (service) await stopService(service.child);
    rmSync(persistTo, { recursive: true, force: true });
  }
  return problems;
}

let failed = 0;
for (let run = 1; run <= RUNS; run++) {
  const problems = await oneRun(run);
  if (problems.length) {
    failed += 1;
    for (const p of problems.slice(0, 30)) console.error(`  ✗ ${p}`);
    if (problems.length > 30) console.error(`  … and ${problems.length - 30} more`);
  }
}
if (failed) {
  console.error(`✗ crash test: ${failed} of ${RUNS} run(s) failed`);
  process.exit(1);
}
console.log(`✓ crash test: ${RUNS} run(s) passed`);
