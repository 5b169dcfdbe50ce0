// npm run bench -- profile: where a request's CPU goes on one wrangler dev, for the endpoints of the load bench.
// 1. CPU milliseconds per request of every process involved (the bench's own client, wrangler's node process and
//    its two workerd processes: one runs wrangler's proxy, the busier one runs the Worker with D1, R2 and the
//    Durable Objects), read from /proc around a closed-loop run.
// 2. The Worker isolate's hottest functions for one endpoint (BENCH_PROFILE_ENDPOINT, default E10), sampled
//    through the inspector's CPU profiler. Self time, in percent of samples; (idle) is time the isolate waited.
// Not a target of its own: the tool that found drizzle's per-request schema walk and esbuild's __name wrappers.
import { existsSync, readdirSync, readFileSync } from "node:fs";
import WebSocket from "ws";
import { printTable } from "./lib.mjs";
import { freePort } from "../lib/ports.mjs";
import { drive, ENDPOINTS, seedRequestPath, startApi } from "./requestpath.mjs";

/** CPU ticks (1/100 s) and command of the processes of one process group. */
function cpuOf(pgid) {
  const out = new Map();
  for (const pid of readdirSync("/proc")) {
    if (!/^\d+$/.test(pid)) continue;
    try {
      const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
      const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
      if (Number(fields[2]) !== pgid) continue;
      const cmd = readFileSync(`/proc/${pid}/cmdline`, "utf8").split("\0");
      const name = cmd[0].endsWith("workerd")
        ? "workerd"
        : cmd.some((a) => a.includes("wrangler"))
          ? "wrangler (node)"
          : cmd[0].split("/").pop();
      out.set(pid, { name, ticks: Number(fields[11]) + Number(fields[12]) });
    } catch {
      // The process ended between listing and reading.
    }
  }
  return out;
}

async function inspector(port) {
  const [target] = await (await fetch(`http://127.0.0.1:${port}/json`)).json();
  const ws = new WebSocket(target.webSocketDebuggerUrl);
  await new Promise((resolve, reject) => ws.once("open", resolve).once("error", reject));
  let id = 0;
  const pending = new Map();
  ws.on("message", (m) => {
    const msg = JSON.parse(m);
    pending.get(msg.id)?.(msg.result);
    pending.delete(msg.id);
  });
  const send = (method, params = {}) =>
    new Promise((resolve) => {
      pending.set(++id, resolve);
      ws.send(JSON.stringify({ id, method, params }));
    });
  return { send, close: () => ws.close() };
}

export default async function () {
  const ms = Number(process.env.BENCH_PROFILE_MS || 4000);
  const endpoint = process.env.BENCH_PROFILE_ENDPOINT || "E10 GET /document/{id}";
  if (!ENDPOINTS[endpoint])
    throw new Error(`BENCH_PROFILE_ENDPOINT must be one of: ${Object.keys(ENDPOINTS).join(", ")}`);
  const inspectorPort = await freePort();
  const api = await startApi({ args: ["--inspector-port", String(inspectorPort)] });
  try {
    const identities = await seedRequestPath(api, { users: 4, tokensPerUser: 10 });
    const rows = [];
    // Per-process CPU is read from /proc (Linux); elsewhere only the isolate's profile is printed.
    for (const [name, pathOf] of existsSync("/proc/self/stat") ? Object.entries(ENDPOINTS) : []) {
      await drive(api.url, pathOf, identities, { concurrency: 16, ms: 1000 });
      const before = cpuOf(api.pgid);
      const client0 = process.cpuUsage();
      const run = await drive(api.url, pathOf, identities, { concurrency: 16, ms });
      const client = process.cpuUsage(client0);
      const after = cpuOf(api.pgid);
      const n = run.latencies.length;
      const perProcess = [...after].map(([pid, p]) => ({
        ...p,
        ms: ((p.ticks - (before.get(pid)?.ticks ?? p.ticks)) * 10) / n,
      }));
      const workerd = perProcess.filter((p) => p.name === "workerd").sort((a, b) => b.ms - a.ms);
      const wrangler = perProcess.filter((p) => p.name === "wrangler (node)").reduce((a, p) => a + p.ms, 0);
      const clientMs = (client.user + client.system) / 1000 / n;
      rows.push({
        endpoint: name,
        "req/s": (n / (ms / 1000)).toFixed(0),
        "Worker's workerd ms/req": workerd[0]?.ms.toFixed(2),
        "proxy workerd ms/req": workerd[1]?.ms.toFixed(2),
        "wrangler node ms/req": wrangler.toFixed(2),
        "bench client ms/req": clientMs.toFixed(2),
        "Worker's workerd busy %": ((((workerd[0]?.ms ?? 0) * n) / ms) * 100).toFixed(0),
      });
    }
    if (rows.length) printTable(`CPU per request by process (16 concurrent callers, ${ms} ms per endpoint)`, rows);

    const { send, close } = await inspector(inspectorPort);
    await send("Profiler.enable");
    await send("Profiler.setSamplingInterval", { interval: 250 });
    await send("Profiler.start");
    const run = await drive(api.url, ENDPOINTS[endpoint], identities, { concurrency: 16, ms });
    const { profile } = await send("Profiler.stop");
    close();
    const nodes = new Map(profile.nodes.map((node) => [node.id, node]));
    const self = new Map();
    for (const sample of profile.samples) {
      const { functionName, url, lineNumber } = nodes.get(sample).callFrame;
      const where = url ? `${url.split("/").pop()}:${lineNumber + 1}` : "native";
      const key = `${functionName || "(anonymous)"} — ${where}`;
      self.set(key, (self.get(key) ?? 0) + 1);
    }
    printTable(
      `The Worker isolate's hottest functions under ${endpoint} (${run.latencies.length} requests, ${profile.samples.length} samples; the profiler slows the isolate)`,
      [...self]
        .sort((a, b) => b[1] - a[1])
        .slice(0, 15)
        .map(([fn, count]) => ({ function: fn, "% of samples": ((100 * count) / profile.samples.length).toFixed(1) })),
    );
  } finally {
    await api.stop();
  }
}
