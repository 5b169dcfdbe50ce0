// npm start killed hard (SIGKILL, no chance to clean up) leaves nothing running: wrangler dev, its workerd
// processes, the PDF converter and its LibreOffice processes all end, and the port is free again. While it runs,
// no process argument carries the admin token.
// node --test scripts/test/ (npm test runs it in its "scripts" stage). Takes about a minute: a real start.
import assert from "node:assert/strict";
import { spawn, spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import net from "node:net";
import os from "node:os";
import path from "node:path";
import { after, test } from "node:test";
import { isolatedEnv, ROOT } from "../lib/proc.mjs";
import { freePort } from "../lib/ports.mjs";

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const dir = mkdtempSync(path.join(os.tmpdir(), "start-kill-test-"));
after(() => rmSync(dir, { recursive: true, force: true }));

/** Every descendant of `root` (pid → command), from ps. */
function descendants(root) {
  const rows = spawnSync("ps", ["-A", "-o", "pid=,ppid=,args="], { encoding: "utf8" }).stdout.split("\n");
  const table = rows
    .map((l) => /^\s*(\d+)\s+(\d+)\s+(.*)$/.exec(l))
    .filter(Boolean)
    .map((m) => ({ pid: Number(m[1]), ppid: Number(m[2]), args: m[3] }));
  const found = new Map();
  let grew = true;
  while (grew) {
    grew = false;
    for (const p of table)
      if (!found.has(p.pid) && (p.ppid === root || found.has(p.ppid))) (found.set(p.pid, p.args), (grew = true));
  }
  return found;
}
const alive = (pid) => {
  try {
    process.kill(pid, 0);
    return !/^\s*Z/.test(spawnSync("ps", ["-o", "stat=", "-p", String(pid)], { encoding: "utf8" }).stdout); // a zombie is gone
  } catch {
    return false;
  }
};
const portTaken = (port) =>
  new Promise((resolve) => {
    const s = net.connect(port, "127.0.0.1");
    s.once("connect", () => (s.destroy(), resolve(true)));
    s.once("error", () => resolve(false));
  });

test(
  "SIGKILL of npm start stops wrangler dev, workerd, the converter and LibreOffice",
  { timeout: 300_000 },
  async () => {
    const port = await freePort();
    const envFile = path.join(dir, "env.sh");
    const child = spawn(process.execPath, [path.join(ROOT, "scripts", "start.mjs")], {
      cwd: ROOT,
      env: isolatedEnv({
        PORT: String(port),
        PERSIST_TO: path.join(dir, "state"),
        ENV_FILE: envFile,
        DEV_VARS: path.join(dir, ".dev.vars"),
      }),
      stdio: ["ignore", "ignore", "inherit"],
    });
    try {
      const deadline = Date.now() + 240_000;
      while (!existsSync(envFile)) {
        assert.equal(child.exitCode, null, "npm start exited before it was ready");
        assert.ok(Date.now() < deadline, "npm start was not ready within 240 s");
        await sleep(250);
      }
      const tree = descendants(child.pid);
      const kinds = [...tree.values()].join("\n");
      assert.match(kinds, /wrangler/, "wrangler dev runs");
      assert.match(kinds, /workerd/, "workerd runs");
      const office = /soffice|oosplash/.test(kinds);
      if (existsSync("/usr/bin/soffice") || existsSync("/usr/local/bin/soffice")) {
        assert.match(kinds, /converter[/\\]src[/\\]main\.ts/, "the converter runs");
        assert.ok(office, "LibreOffice runs");
      }
      assert.ok(await portTaken(port), "the API port is taken while it runs");
      // The secrets reach wrangler dev through a file, never as process arguments (`ps` shows them to every user).
      const adminToken = /^export ADMIN_TOKEN=(.*)$/m.exec(readFileSync(envFile, "utf8"))?.[1]?.replace(/^'|'$/g, "");
      assert.ok(adminToken && adminToken.length > 10, "env.sh holds the admin token");
      assert.deepEqual(
        [...tree.values()].filter((args) => args.includes(adminToken)),
        [],
        "no process argument carries ADMIN_TOKEN",
      );

      child.kill("SIGKILL");
      const until = Date.now() + 20_000;
      let left = [...tree.keys()].filter(alive);
      while (left.length && Date.now() < until) {
        await sleep(250);
        left = left.filter(alive);
      }
      assert.deepEqual(
        left.map((pid) => `${pid} ${tree.get(pid)}`),
        [],
        "every process npm start started has ended",
      );
      assert.equal(await portTaken(port), false, "the API port is free again");
    } finally {
      if (child.exitCode === null && child.signalCode === null) child.kill("SIGKILL");
    }
  },
);
