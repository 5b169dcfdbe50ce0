// Shared benchmark plumbing: a real local API (wrangler dev on a fresh persisted state) and a raw D1 of the
// same engine for baselines, measured side by side in one run.
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { BIN, ROOT, freePort, run, startChild, waitForHttp } from "../lib/proc.mjs";
import { buildAssets } from "../build-assets.mjs";
import { varArgs as devVarArgs } from "../lib/devvars.mjs";
import { d1Blocks, openLocalD1 } from "../lib/d1.mjs";
// The id codec and the shard map the Worker routes by: TypeScript that Node loads directly (no imports of other
// src/ modules; ids.ts imports only the ulidx package).
import { shardNumberOfId, shardSuffix } from "../../src/lib/ids.ts";
import { isLogicalShard, physicalIndexOf } from "../../src/tenancy/kernel/map.ts";

export const ADMIN_TOKEN = "bench-admin-token";

/** A new persisted local state (D1 migrations applied) that wrangler dev and openD1 can both use, one at a time. */
export function freshState() {
  const dir = mkdtempSync(path.join(os.tmpdir(), "cws-bench-"));
  run(process.execPath, [path.join(ROOT, "scripts", "lib", "d1.mjs"), dir], { quiet: true });
  return dir;
}

/**
 * wrangler dev on a fresh database, or on `dir` (from freshState, kept on stop so it can be reopened);
 * `vars` become Worker vars (e.g. CONVERTER_URL).
 */
export async function startApi({ vars = {}, dir: existingDir, args = [] } = {}) {
  buildAssets();
  const dir = existingDir ?? freshState();
  const port = await freePort();
  // Secrets through a file in the state directory (not the command line); the rest as --var.
  const varArgs = devVarArgs(
    {
      ENVIRONMENT: "development",
      TRUST_CF_CONNECTING_IP: "false",
      ADMIN_TOKEN,
      SIGNING_SECRET: "bench-signing-secret",
      CONVERTER_SECRET: "bench-converter-secret",
      ...vars,
    },
    path.join(dir, "wrangler-dev.vars"),
  );
  const { child, stop } = startChild(
    path.join(BIN, "wrangler"),
    [
      "dev",
      "--port",
      String(port),
      "--ip",
      "127.0.0.1",
      "--persist-to",
      dir,
      "--log-level",
      "warn",
      "--show-interactive-dev-session=false",
      ...varArgs,
      ...args,
    ],
    // Its own environment, not the developer's (scripts/lib/proc.mjs isolatedEnv): its secrets are the file's alone.
    {
      env: {
        CI: "1",
        WRANGLER_SEND_METRICS: "false",
        CLOUDFLARE_CF_FETCH_ENABLED: "false",
        ENVIRONMENT: "development",
      },
      stdio: ["ignore", "ignore", "inherit"],
      isolated: true,
    },
  );
  const url = `http://127.0.0.1:${port}`;
  await waitForHttp(`${url}/health`, { timeoutMs: 90_000, child });
  return {
    url,
    /** The process group of wrangler dev and everything it started (workerd, esbuild). */
    pgid: child.pid,
    async call(method, p, { token, body, raw, headers = {} } = {}) {
      const h = { ...headers };
      if (token) h.authorization = `Bearer ${token}`;
      if (body !== undefined) h["content-type"] = "application/json";
      const res = await fetch(url + p, {
        method,
        headers: h,
        body: body !== undefined ? JSON.stringify(body) : raw,
        duplex: "half",
      });
      const type = res.headers.get("content-type") ?? "";
      const data = type.includes("json") ? await res.json() : await res.arrayBuffer();
      if (!res.ok) throw new Error(`${method} ${p} → ${res.status}: ${JSON.stringify(data).slice(0, 300)}`);
      return data;
    },
    async stop() {
      stop();
      await new Promise((resolve) => (child.exitCode !== null ? resolve() : child.once("exit", resolve)));
      if (!existingDir) rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** A user with a workspace and project on the given API. */
export async function seedUser(api, name = "Bench") {
  const reg = await api.call("POST", "/admin/users", {
    token: ADMIN_TOKEN,
    body: { email: `${name.toLowerCase()}-${Date.now()}@bench.test`, name },
  });
  const token = reg.data.token.token;
  const project = await api.call("POST", "/project", {
    token,
    body: { workspaceId: reg.data.workspace._id, name: "Bench project" },
  });
  return { token, workspaceId: reg.data.workspace._id, projectId: project.data._id, userId: reg.data.user._id };
}

/**
 * Tokens of `n` users who may all write in `u`'s workspace (`u`'s own first, then admins of its workspace): a setup of
 * more than 300 requests per minute spreads its calls over them, so it stays within the per-user rate limit (all of
 * a user's tokens together, docs/api-guide.md) instead of lifting it.
 */
export async function tokensFor(api, u, n) {
  const out = [u.token];
  for (let i = 1; i < n; i++) {
    const email = `bench-helper-${i}-${Date.now()}@bench.test`;
    const reg = await api.call("POST", "/admin/users", {
      token: ADMIN_TOKEN,
      body: { email, name: `Bench helper ${i}` },
    });
    await api.call("POST", `/workspace/${u.workspaceId}/collaborator`, {
      token: u.token,
      body: { email, role: "admin" },
    });
    out.push(reg.data.token.token);
  }
  let next = 0;
  return { all: out, next: () => out[next++ % out.length] };
}

/**
 * The logical shard an id names (docs/scaling.md "Id format"): the last two characters (Crockford base-32) of a
 * 28-character id.
 */
export function logicalShardOf(id) {
  const n = shardNumberOfId(id);
  if (n === null || !isLogicalShard(n)) throw new Error(`${id} names no logical shard`);
  return n;
}

/** The two characters that end ids issued on the same shard as `id` (the suffix the engine appends in SQL). */
export const suffixBeside = (id) => shardSuffix(logicalShardOf(id));

/**
 * A generator of ids on the same shard as `id` (a record of the same organization), from a ULID generator, as
 * the services issue them (src/tenancy/kernel/ids.ts newIdBeside): seeded records must name the shard they are written
 * to, or the Worker routes their requests to another database.
 */
export const idsBeside = (ulid, id) => {
  const suffix = suffixBeside(id);
  return () => ulid() + suffix;
};

/** The binding of the shard database holding the record `id` (SHARD_k), through the Worker's shard map. */
export const shardBindingOf = (id) => `SHARD_${physicalIndexOf(logicalShardOf(id))}`;

/**
 * The D1 and R2 bindings of a persisted state, opened in-process (openLocalD1: only the databases and buckets, so
 * no stand-in Worker). wrangler dev stores its state under `<persist-to>/v3`. Use it while no wrangler dev runs
 * on `dir` (e.g. to seed large tables quickly before starting the API on the same dir). `db` is the directory
 * (users, tokens, notifications); `shard(id)` is the shard database holding the record `id` — everything inside
 * an organization is there (docs/scaling.md).
 */
export async function openD1(dir) {
  const proxy = await openLocalD1(dir, undefined, { r2: true });
  const shard = (id) => {
    const binding = shardBindingOf(id);
    const db = proxy.env[binding];
    if (!db) throw new Error(`no D1 binding ${binding} for ${id}`);
    return db;
  };
  return { db: proxy.env.DB, shard, r2: proxy.env.BLOBS, dispose: () => proxy.dispose() };
}

const PLAIN_ULID = "0".repeat(26);

/**
 * A raw D1 binding (same local engine, migrations applied) for baselines: a shard database, which holds every table
 * a baseline writes (organizations and what is inside them, and its copy of users); the directory holds none of
 * those (docs/scaling.md "Migrations per kind of database").
 */
export async function rawD1() {
  const dir = freshState();
  const opened = await openD1(dir);
  return {
    // The baselines' ids are plain ULIDs, which name the default logical shard (0): the database holding it. Asked
    // with that shard's suffix, since logicalShardOf takes only the sharded form.
    db: opened.shard(PLAIN_ULID + "00"),
    shard: opened.shard,
    r2: opened.r2,
    async dispose() {
      await opened.dispose();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

export async function time(fn) {
  const t0 = performance.now();
  const out = await fn();
  return { ms: performance.now() - t0, out };
}

export function median(xs) {
  const s = [...xs].sort((a, b) => a - b);
  const m = Math.floor(s.length / 2);
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
}

export function printTable(title, rows) {
  console.log(`\n${title}`);
  console.table(rows);
}

/**
 * A user, organization, workspace, project and table written straight into a raw D1 (for baselines that insert rows
 * without the API), plus `columnStatements(ids, t)` of the caller's own columns in the same batch.
 */
export async function seedRawTable(db, ulid, columnStatements = () => []) {
  const t = Date.now();
  const ids = { user: ulid(), org: ulid(), ws: ulid(), project: ulid(), table: ulid() };
  await db.batch([
    db
      .prepare("INSERT INTO users (id, email, name, created_at, updated_at) VALUES (?, ?, 'Raw', ?, ?)")
      .bind(ids.user, `raw-${t}-${ids.user}@bench.test`, t, t),
    db
      .prepare("INSERT INTO organizations (id, name, owner_id, created_at, updated_at) VALUES (?, 'Raw', ?, ?, ?)")
      .bind(ids.org, ids.user, t, t),
    db
      .prepare(
        "INSERT INTO workspaces (id, organization_id, name, owner_id, created_at, updated_at) VALUES (?, ?, 'Raw', ?, ?, ?)",
      )
      .bind(ids.ws, ids.org, ids.user, t, t),
    db
      .prepare(
        "INSERT INTO projects (id, workspace_id, user_id, name, created_at, updated_at) VALUES (?, ?, ?, 'Raw', ?, ?)",
      )
      .bind(ids.project, ids.ws, ids.user, t, t),
    db
      .prepare(
        "INSERT INTO tables (id, project_id, workspace_id, user_id, name, created_at, updated_at) VALUES (?, ?, ?, ?, 'Raw', ?, ?)",
      )
      .bind(ids.table, ids.project, ids.ws, ids.user, t, t),
    ...columnStatements(ids, t),
  ]);
  return ids;
}

/**
 * The largest value `pick` gives over the workerd processes of wrangler dev's process group `pgid` (the one running
 * the Worker is the busiest and the largest), each seen as { ticks: CPU ticks of 1/100 s, rssMb: resident MB };
 * null off Linux or when none is found.
 */
export function workerdStats(pgid, pick) {
  let best = null;
  let pids;
  try {
    pids = readdirSync("/proc").filter((p) => /^\d+$/.test(p));
  } catch {
    return null;
  }
  for (const pid of pids) {
    try {
      const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
      const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
      if (
        Number(fields[2]) !== pgid ||
        !readFileSync(`/proc/${pid}/cmdline`, "utf8").split("\0")[0].endsWith("workerd")
      )
        continue;
      const rss = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, "utf8"));
      const value = pick({ ticks: Number(fields[11]) + Number(fields[12]), rssMb: rss ? Number(rss[1]) / 1024 : 0 });
      if (best === null || value > best) best = value;
    } catch {
      // The process ended between listing and reading.
    }
  }
  return best;
}

/**
 * The floor Worker (scripts/bench/floor-worker.mjs) under its own wrangler dev, on `dir` (a copy of the API's seeded
 * state: two wrangler dev on one state contend): the same D1 databases and Rate Limiting binding, no application
 * code. `call(path, { token, body })` POSTs to it and answers its JSON.
 */
export async function startFloor(dir) {
  const config = path.join(dir, "floor-wrangler.toml");
  const lines = [
    `name = "workspace-edge-floor"`,
    `main = "${path.join(ROOT, "scripts", "bench", "floor-worker.mjs")}"`,
    `compatibility_date = "2026-11-01"`,
    "",
    ...d1Blocks(),
    "[[ratelimits]]",
    `name = "RATE_LIMITER"`,
    `namespace_id = "1001"`,
    "simple = { limit = 300, period = 60 }",
  ];
  writeFileSync(config, lines.join("\n"));
  const [port, inspector] = [await freePort(), await freePort()];
  const { child, stop } = startChild(
    path.join(BIN, "wrangler"),
    [
      "dev",
      "--config",
      config,
      "--port",
      String(port),
      "--inspector-port",
      String(inspector),
      "--ip",
      "127.0.0.1",
      "--persist-to",
      dir,
      "--log-level",
      "warn",
      "--show-interactive-dev-session=false",
    ],
    {
      env: { CI: "1", WRANGLER_SEND_METRICS: "false", CLOUDFLARE_CF_FETCH_ENABLED: "false" },
      stdio: ["ignore", "ignore", "inherit"],
      isolated: true,
    },
  );
  const url = `http://127.0.0.1:${port}`;
  await waitForHttp(`${url}/health`, { timeoutMs: 90_000, child });
  return {
    url,
    async call(p, { token, body }) {
      const res = await fetch(url + p, {
        method: "POST",
        headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
        body: JSON.stringify(body),
      });
      if (!res.ok) throw new Error(`floor ${p} → ${res.status}: ${(await res.text()).slice(0, 300)}`);
      return res.json();
    },
    async stop() {
      stop();
      await new Promise((resolve) => (child.exitCode !== null ? resolve() : child.once("exit", resolve)));
    },
  };
}
