// The long-running children of npm start (converter, wrangler/workerd) and how to stop all of them.
//
// Each child starts in its own process group (detached), so signalling the group reaches its helpers too
// (wrangler's workerd). The converter puts every office process in a group of its own (so it can kill a hung
// one), which a group signal to the converter does not reach: stopAll() therefore first records every
// descendant's process group, asks the children politely (SIGTERM to their groups; the converter then closes
// its pool), and after they are gone (or a grace period) SIGKILLs whatever of the recorded groups is still
// there. Nothing started here outlives the script.
//
// Not even when the script cannot clean up (SIGKILL, an out-of-memory kill, a crash of node itself): the first
// spawn also starts a watchdog (scripts/lib/watchdog.mjs) in its own session, told each child's pid over a pipe
// from this process. When that pipe closes — which the kernel does however this process ends — the watchdog
// runs the same stop sequence on the children and exits. A normal stop leaves it nothing to do.
import { spawn, spawnSync } from "node:child_process";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { ROOT } from "./proc.mjs";

const WATCHDOG = path.join(path.dirname(fileURLToPath(import.meta.url)), "watchdog.mjs");

/** pid → { ppid, pgid } for every process, via ps (Linux and macOS). */
function processTable() {
  const res = spawnSync("ps", ["-A", "-o", "pid=,ppid=,pgid="], { encoding: "utf8" });
  const table = new Map();
  if (res.status !== 0) return table;
  for (const line of res.stdout.split("\n")) {
    const [pid, ppid, pgid] = line.trim().split(/\s+/).map(Number);
    if (pid) table.set(pid, { ppid, pgid });
  }
  return table;
}

/** Process groups of `rootPid` and all its descendants. */
export function descendantGroups(rootPid) {
  const table = processTable();
  const groups = new Set([rootPid]);
  const pids = new Set([rootPid]);
  let grew = true;
  while (grew) {
    grew = false;
    for (const [pid, { ppid, pgid }] of table) {
      if (!pids.has(pid) && pids.has(ppid)) {
        pids.add(pid);
        groups.add(pgid);
        grew = true;
      }
    }
  }
  return groups;
}

export function groupAlive(pgid) {
  try {
    process.kill(-pgid, 0);
    return true;
  } catch {
    return false;
  }
}

export function signalGroup(pgid, signal) {
  try {
    process.kill(-pgid, signal);
  } catch {}
}

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

/**
 * Stops the children `own` (pids, each leading its process group) and every descendant's group: SIGTERM to the
 * children's groups, then SIGKILL after `graceMs` to whatever of the recorded groups is still there.
 */
export async function stopGroups(own, { graceMs = 5000 } = {}) {
  const all = new Set(own);
  for (const pid of own) for (const g of descendantGroups(pid)) all.add(g);
  // Polite first, to the children only: the converter then closes its own office processes.
  for (const g of own) signalGroup(g, "SIGTERM");
  const deadline = Date.now() + graceMs;
  while (Date.now() < deadline && own.some(groupAlive)) await sleep(100);
  await sleep(200);
  // Whatever is left of any group seen (a child that ignored SIGTERM, an office process it left behind).
  for (const g of all) if (groupAlive(g)) signalGroup(g, "SIGKILL");
}

/** The watchdog: a separate process that stops `pid`s written to its stdin once this process is gone. */
function startWatchdog() {
  const dog = spawn(process.execPath, [WATCHDOG, String(process.pid)], {
    stdio: ["pipe", "ignore", "inherit"],
    detached: true,
  });
  dog.on("error", () => {});
  dog.stdin.on("error", () => {});
  dog.unref();
  dog.stdin.unref?.();
  return dog;
}

export function createSupervisor({ watchdog = true } = {}) {
  const children = [];
  let stopping = null;
  let dog = null;

  return {
    children,
    /** Start `cmd` detached (own process group); `name` appears in messages. */
    spawn(name, cmd, args, opts = {}) {
      const child = spawn(cmd, args, {
        cwd: opts.cwd ?? ROOT,
        env: { ...process.env, ...opts.env },
        stdio: opts.stdio ?? ["ignore", "inherit", "inherit"],
        detached: true,
      });
      child.on("error", () => {}); // reported through exitCode/waitForExit by the caller
      if (watchdog && child.pid) {
        dog ??= startWatchdog();
        dog.stdin.write(`${child.pid}\n`);
      }
      const entry = { name, child };
      children.push(entry);
      return entry;
    },
    get stopping() {
      return stopping !== null;
    },
    /** Stops every child and its descendants: SIGTERM, then SIGKILL after `graceMs`. Safe to call twice. */
    stopAll({ graceMs = 5000 } = {}) {
      stopping ??= stopGroups(children.map(({ child }) => child.pid).filter(Boolean), { graceMs });
      return stopping;
    },
  };
}
