// The README tour as a test: starts a fresh service exactly like `npm start` (scripts/start.mjs, on a free
// port, with an empty local database) and runs the README's shell blocks against it, in order, in one bash
// session. `npm test` runs it after the Worker tests, so the README cannot drift from the service.
//
// THE RULES FOR README BLOCKS (every section, whoever writes it, follows them):
//   1. ```sh blocks are executed, top to bottom, in ONE bash session with `set -euo pipefail` (so an unset
//      variable or a failing command fails the tour). Variables assigned in one block are there in the next.
//   2. ```bash and ```console blocks are shown, never executed: use them for commands that must not run in the
//      test (`npm install && npm start` itself, deploy commands, long-running servers). ```js, ```json,
//      ```text and plain ``` blocks are never executed either.
//   3. The session starts in a scratch directory that mirrors the repository's top level (symlinks), so paths
//      like docs/examples/contract.docx work and files the tour writes land in the scratch directory; its
//      .dev/env.sh is the fresh service's. Only these variables come from npm start (via `source .dev/env.sh`):
//      BASE TOKEN ADMIN_TOKEN ORG_ID WS_ID PROJECT_ID FOLDER_ID DOC_ID TABLE_ID WEBHOOK_INBOX. Everything else is
//      assigned in the tour from an earlier response (the first block defines `json`, e.g. `… | json .data._id`).
//      The first block also defines `curl() { command curl -w … }`, which prints each call's status for a reader;
//      here that one line is replaced by the runner's own curl function, which prints the same status line.
//   4. Every curl is `curl -sS --fail-with-body …` (a reader's paste stops on an error too). The runner checks
//      each call's status: anything but 2xx fails the tour.
//   5. A call that is expected to fail is written WITHOUT --fail-with-body, on the line right after a comment
//      `# expect: <status>` (e.g. `# expect: 409`), and starts with `curl` (not assigned, not piped). The
//      runner checks that it answers exactly that status.
//   6. Runs against a shared service: use names that are unique per run where the API insists on uniqueness
//      (emails, pre-generated ids), so the tour can be pasted twice.
//
// Usage: node scripts/readme-tour.mjs [--env <env.sh of a running service>] [--keep]
//   --env   run against an already running service (its .dev/env.sh) instead of starting a fresh one
//   --keep  keep the scratch directory and the service log
//   --verbose  print every block's output, not only a failing one's
//   --readme <file>  another markdown file (to try the runner itself)
import { spawn } from "node:child_process";
import {
  copyFileSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  openSync,
  readdirSync,
  readFileSync,
  rmSync,
  symlinkSync,
} from "node:fs";
import os from "node:os";
import path from "node:path";
import { BIN, isolatedEnv, ROOT } from "./lib/proc.mjs";
import { freePort } from "./lib/ports.mjs";

const args = process.argv.slice(2);
const README = args.includes("--readme")
  ? path.resolve(args[args.indexOf("--readme") + 1])
  : path.join(ROOT, "README.md");
const envArg = args.includes("--env") ? path.resolve(args[args.indexOf("--env") + 1]) : null;
const keep = args.includes("--keep");
const verbose = args.includes("--verbose");
const NODE = existsSync(path.join(BIN, "node")) ? path.join(BIN, "node") : process.execPath;
const PATH = [BIN, process.env.PATH].join(path.delimiter);

/** ```lang blocks with the README line their code starts on. */
export function extractBlocks(text) {
  const blocks = [];
  const lines = text.split("\n");
  let open = null;
  for (let i = 0; i < lines.length; i++) {
    const fence = /^(\s*)(`{3,}|~{3,})\s*([\w+-]*)/.exec(lines[i]);
    if (!open && fence) {
      open = { fence: fence[2], lang: fence[3].toLowerCase(), line: i + 2, code: [] };
    } else if (open && lines[i].trim().startsWith(open.fence) && lines[i].trim().replace(/[`~]/g, "") === "") {
      blocks.push({ lang: open.lang, line: open.line, code: open.code.join("\n") });
      open = null;
    } else if (open) {
      open.code.push(lines[i]);
    }
  }
  return blocks;
}

/** Logical commands (backslash continuations joined) with their first line number. */
function logicalLines(block) {
  const out = [];
  const lines = block.code.split("\n");
  for (let i = 0; i < lines.length; i++) {
    const start = i;
    let text = lines[i];
    while (text.endsWith("\\") && i + 1 < lines.length) text = text.slice(0, -1) + " " + lines[++i];
    out.push({ line: block.line + start, index: start, text });
  }
  return out;
}

const CURL = /(^|[\s|;&(]|\$\()curl\s/;
/** The README's own `curl() { … }` (status printing for readers); the runner's function takes its place. */
const CURL_FUNCTION = /^\s*curl\(\)\s*\{.*\}\s*$/;

/** Rule 4 and 5 checks; returns problems as "README.md:<line>: …". */
export function lint(blocks) {
  const problems = [];
  for (const b of blocks) {
    const logical = logicalLines(b);
    for (let k = 0; k < logical.length; k++) {
      const { line, text } = logical[k];
      if (CURL_FUNCTION.test(text)) continue;
      const expect = /^\s*#\s*expect:\s*(\S+)\s*$/.exec(text);
      if (expect) {
        const next = logical[k + 1];
        if (!/^\d{3}$/.test(expect[1])) problems.push(`README.md:${line}: "# expect:" needs a 3-digit status`);
        else if (!next || !/^\s*curl\s/.test(next.text))
          problems.push(`README.md:${line}: the line after "# expect: ${expect[1]}" must start with curl`);
        else if (/--fail-with-body/.test(next.text))
          problems.push(`README.md:${next.line}: a call expected to fail has no --fail-with-body`);
        else if (!/(^|\s)-sS\b/.test(next.text)) problems.push(`README.md:${next.line}: write curl -sS`);
        k++;
        continue;
      }
      const code = text.replace(/(^|\s)#.*$/, "");
      if (CURL.test(code) && !/--fail-with-body/.test(code)) {
        problems.push(
          `README.md:${line}: curl without --fail-with-body (or mark an expected failure with "# expect: <status>" on the line before)`,
        );
      }
    }
  }
  return problems;
}

const PRELUDE = String.raw`
set -euo pipefail
shopt -s inherit_errexit
exec 2>&1
__tour_status_file=$(mktemp)
# Every curl of the tour goes through this: the status must be 2xx, or exactly the "# expect:" one.
curl() {
  local want="${"${"}__EXPECT:-}" rc=0 status
  command curl "$@" -w '%{stderr}__TOUR_HTTP_STATUS__ %{http_code}\n' 2>"$__tour_status_file" || rc=$?
  status=$(sed -n 's/^.*__TOUR_HTTP_STATUS__ //p' "$__tour_status_file" | tail -n 1)
  sed 's/__TOUR_HTTP_STATUS__ [0-9]*$//' "$__tour_status_file" | grep -v '^$' >&2 || true
  printf '\n   → HTTP %s\n' "${"${"}status:-none}" >&2
  if [ -n "$want" ]; then
    if [ "$status" = "$want" ]; then printf '\n   [tour] HTTP %s, as the README expects\n' "$status" >&2; return 0; fi
    printf '\n   [tour] expected HTTP %s, got %s\n' "$want" "${"${"}status:-no response (curl exit $rc)}" >&2
    return 1
  fi
  case "$status" in
    2??) [ "$rc" = 0 ] && return 0 ;;
  esac
  printf '\n   [tour] HTTP %s (curl exit %s); not 2xx and not marked "# expect: %s"\n' "${"${"}status:-none}" "$rc" "${"${"}status:-?}" >&2
  return "$(( rc == 0 ? 1 : rc ))"
}
trap 'printf "\n   [tour] command failed (exit %s): %s\n" "$?" "$BASH_COMMAND"' ERR
`;

function buildScript(blocks) {
  const parts = [PRELUDE];
  blocks.forEach((b, i) => {
    parts.push(`printf '\\n\\036BLOCK ${i}\\n'`);
    const lines = b.code.split("\n");
    for (let j = 0; j < lines.length; j++) {
      const m = /^\s*#\s*expect:\s*(\d{3})\s*$/.exec(lines[j]);
      if (CURL_FUNCTION.test(lines[j])) {
        parts.push(
          "# (the README's curl() is replaced by the runner's checking curl, which prints the same status line)",
        );
      } else if (m && j + 1 < lines.length) {
        parts.push(lines[j]);
        parts.push(lines[j + 1].replace(/^(\s*)curl\s/, `$1__EXPECT=${m[1]} curl `));
        j++;
      } else parts.push(lines[j]);
    }
  });
  parts.push(`printf '\\n\\036DONE\\n'`);
  return parts.join("\n") + "\n";
}

/** A scratch directory that mirrors the repository's top level, with the service's env file in .dev/. */
function makeScratch() {
  const dir = mkdtempSync(path.join(os.tmpdir(), "readme-tour-"));
  const work = path.join(dir, "work");
  mkdirSync(path.join(work, ".dev"), { recursive: true });
  for (const name of readdirSync(ROOT)) {
    if (name === ".dev") continue;
    symlinkSync(path.join(ROOT, name), path.join(work, name));
  }
  return { dir, work };
}

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

/** `node scripts/start.mjs` exactly as npm start runs it, on a free port with its own empty state. */
async function startFreshService(dir) {
  const port = await freePort();
  const envFile = path.join(dir, "env.sh");
  const log = path.join(dir, "service.log");
  const out = openSync(log, "w");
  const child = spawn(NODE, [path.join(ROOT, "scripts", "start.mjs")], {
    cwd: ROOT,
    // npm start as a new user runs it, with nothing of this developer's: its own state, secrets and environment.
    env: isolatedEnv({
      PATH,
      PORT: String(port),
      PERSIST_TO: path.join(dir, "state"),
      ENV_FILE: envFile,
      DEV_VARS: path.join(dir, ".dev.vars"),
    }),
    stdio: ["ignore", out, out],
    detached: true,
  });
  const stop = async () => {
    if (child.exitCode !== null || child.signalCode !== null) return;
    try {
      process.kill(child.pid, "SIGTERM"); // start.mjs stops its converter and wrangler, then exits
    } catch {}
    for (let i = 0; i < 100 && child.exitCode === null && child.signalCode === null; i++) await sleep(100);
    try {
      process.kill(-child.pid, "SIGKILL");
    } catch {}
  };
  const deadline = Date.now() + 240_000;
  while (!existsSync(envFile)) {
    if (child.exitCode !== null || Date.now() > deadline) {
      await stop();
      const tail = readFileSync(log, "utf8").split("\n").slice(-40).join("\n");
      throw new Error(
        `The fresh service did not start (${child.exitCode !== null ? `exit ${child.exitCode}` : "timeout"}). Its log:\n${tail}`,
      );
    }
    await sleep(250);
  }
  await sleep(100); // the file is written in one call; let it land
  return { envFile, log, stop, port };
}

function runBash(script, cwd, blocks) {
  return new Promise((resolve) => {
    const child = spawn("bash", ["--noprofile", "--norc", "-c", script], {
      cwd,
      env: { ...process.env, PATH },
      stdio: ["ignore", "pipe", "pipe"],
    });
    const outputs = blocks.map(() => "");
    let current = -1;
    let done = false;
    let buf = "";
    const onData = (chunk) => {
      buf += chunk.toString("utf8");
      let nl;
      while ((nl = buf.indexOf("\n")) >= 0) {
        const line = buf.slice(0, nl);
        buf = buf.slice(nl + 1);
        const marker = /^\x1e(BLOCK (\d+)|DONE)$/.exec(line);
        if (marker) {
          if (current >= 0)
            console.log(
              `  ✓ README.md:${blocks[current].line}${verbose ? `\n${outputs[current].replace(/^/gm, "      ")}` : ""}`,
            );
          if (marker[1] === "DONE") done = true;
          else current = Number(marker[2]);
        } else if (current >= 0) outputs[current] += line + "\n";
      }
    };
    child.stdout.on("data", onData);
    child.stderr.on("data", onData);
    const timer = setTimeout(() => child.kill("SIGKILL"), 15 * 60_000);
    child.on("close", (code) => {
      clearTimeout(timer);
      if (buf && current >= 0) outputs[current] += buf;
      resolve({ code, done, current, outputs });
    });
  });
}

async function main() {
  const started = Date.now();
  const blocks = extractBlocks(readFileSync(README, "utf8")).filter((b) => b.lang === "sh");
  if (blocks.length === 0) throw new Error("README.md has no ```sh blocks");
  const problems = lint(blocks);
  if (problems.length) {
    console.error(
      `README tour: the blocks break the rules at the top of scripts/readme-tour.mjs:\n${problems.map((p) => `  ${p}`).join("\n")}`,
    );
    return 1;
  }

  const { dir, work } = makeScratch();
  let service = null;
  let passed = false;
  try {
    if (envArg) {
      copyFileSync(envArg, path.join(work, ".dev", "env.sh"));
      console.log(`README tour: ${blocks.length} blocks against the running service of ${envArg}`);
    } else {
      console.log(`README tour: starting a fresh service like npm start …`);
      service = await startFreshService(dir);
      copyFileSync(service.envFile, path.join(work, ".dev", "env.sh"));
      console.log(
        `README tour: service on port ${service.port} ready after ${((Date.now() - started) / 1000).toFixed(1)} s; running ${blocks.length} blocks`,
      );
    }
    const tourStart = Date.now();
    const result = await runBash(buildScript(blocks), work, blocks);
    if (result.code === 0 && result.done) {
      passed = true;
      console.log(
        `README tour passed: ${blocks.length} blocks in ${((Date.now() - tourStart) / 1000).toFixed(1)} s (${((Date.now() - started) / 1000).toFixed(1)} s with the start)`,
      );
      return 0;
    }
    const failed = Math.max(result.current, 0);
    const b = blocks[failed];
    console.error(`\n✗ README tour failed in the block at README.md:${b.line} (exit ${result.code})\n`);
    console.error("── block ──────────────────────────────────────────");
    console.error(
      b.code
        .split("\n")
        .map((l, i) => `${String(b.line + i).padStart(5)}  ${l}`)
        .join("\n"),
    );
    console.error("── its output ─────────────────────────────────────");
    console.error(result.outputs[failed].trimEnd() || "(none)");
    console.error("───────────────────────────────────────────────────");
    if (service) console.error(`Service log: ${service.log}`);
    return 1;
  } finally {
    if (service) await service.stop();
    if (!keep && passed) rmSync(dir, { recursive: true, force: true });
    else console.log(`Scratch directory kept: ${dir}`);
  }
}

const code = await main().catch((err) => {
  console.error(`✗ README tour: ${err.message}`);
  return 1;
});
process.exit(code);
