// Helpers shared by the start, test and bench scripts (plain Node, no build step).
import { spawn, spawnSync } from "node:child_process";
import net from "node:net";
import path from "node:path";
import { fileURLToPath } from "node:url";

export const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");
export const BIN = path.join(ROOT, "node_modules", ".bin");

/** Run a command to completion, inheriting stdio; throws on failure. */
export function run(cmd, args, opts = {}) {
  const res = spawnSync(cmd, args, {
    cwd: ROOT,
    stdio: opts.quiet ? "pipe" : "inherit",
    env: { ...process.env, ...opts.env },
    encoding: "utf8",
  });
  if (res.status !== 0) {
    if (opts.quiet) process.stderr.write(`${res.stdout ?? ""}${res.stderr ?? ""}`);
    throw new Error(`${cmd} ${args.join(" ")} exited with ${res.status}`);
  }
  return res;
}

export function freePort() {
  return new Promise((resolve, reject) => {
    const srv = net.createServer();
    srv.unref();
    srv.on("error", reject);
    srv.listen(0, "127.0.0.1", () => {
      const { port } = srv.address();
      srv.close(() => resolve(port));
    });
  });
}

export async function waitForHttp(url, { timeoutMs = 60_000, child } = {}) {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (child && child.exitCode !== null) throw new Error(`process exited (${child.exitCode}) before ${url} answered`);
    try {
      const res = await fetch(url);
      if (res.ok) return;
    } catch {}
    await new Promise((r) => setTimeout(r, 200));
  }
  throw new Error(`${url} did not answer within ${timeoutMs} ms`);
}

/**
 * The environment of a service that tests and benches start: the developer's shell stripped to what running
 * programs needs, plus `extra`. Nothing of a developer's local settings reaches it — a shell that sourced
 * .dev/env.sh exports ADMIN_TOKEN, and wrangler reads declared secrets from its environment over --env-file, so a
 * test service would take the developer's admin token instead of its own.
 */
export function isolatedEnv(extra = {}) {
  const keep = [
    "PATH",
    "HOME",
    "TMPDIR",
    "LANG",
    "LC_ALL",
    "TZ",
    "USER",
    "SHELL",
    "SYSTEMROOT",
    "APPDATA",
    "LOCALAPPDATA",
  ];
  const base = Object.fromEntries(keep.filter((k) => process.env[k] !== undefined).map((k) => [k, process.env[k]]));
  return { ...base, ...extra };
}

/** Start a long-running child in its own process group so stop() takes its whole tree down. */
export function startChild(cmd, args, opts = {}) {
  const child = spawn(cmd, args, {
    cwd: opts.cwd ?? ROOT,
    env: opts.isolated ? isolatedEnv(opts.env) : { ...process.env, ...opts.env },
    stdio: opts.stdio ?? ["ignore", "inherit", "inherit"],
    detached: true,
  });
  const stop = () => {
    if (child.exitCode === null) {
      try {
        process.kill(-child.pid, "SIGTERM");
      } catch {}
    }
  };
  return { child, stop };
}
