// The watchdog of npm start's children (started by createSupervisor in children.mjs, in its own session so a
// closed terminal or a signal to npm start's process group does not reach it). Reads child pids, one a line,
// from stdin, a pipe whose other end only the parent holds. When that pipe closes, however the parent ended
// (even SIGKILL), or when the parent pid is gone (checked every second as a fallback), it stops every child and
// their descendants exactly as a normal stop does, then exits.
import { stopGroups } from "./children.mjs";

const parent = Number(process.argv[2]);
process.stderr.on("error", () => {}); // the terminal may be gone too
const pids = new Set();
let buffered = "";
let stopping = false;

async function parentGone() {
  if (stopping) return;
  stopping = true;
  const alive = [...pids].filter((pid) => {
    try {
      process.kill(pid, 0);
      return true;
    } catch {
      return false;
    }
  });
  if (alive.length) {
    console.error(
      `\n! npm start (pid ${parent}) ended without stopping its children; stopping ${alive.length} process group(s).`,
    );
    await stopGroups(alive);
  }
  process.exit(0);
}

process.stdin.setEncoding("utf8");
process.stdin.on("data", (chunk) => {
  buffered += chunk;
  const lines = buffered.split("\n");
  buffered = lines.pop() ?? "";
  for (const line of lines) if (/^\d+$/.test(line.trim())) pids.add(Number(line.trim()));
});
process.stdin.on("end", parentGone);
process.stdin.on("error", parentGone);
setInterval(() => {
  try {
    process.kill(parent, 0);
  } catch {
    void parentGone();
  }
}, 1000);
// Signals meant for the terminal's process group are not ours to act on; the pipe says when to stop.
for (const sig of ["SIGINT", "SIGHUP"]) process.on(sig, () => {});
