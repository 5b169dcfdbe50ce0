// npm test: the script tests, the converter's own tests against real LibreOffice, every Worker test inside workerd
// (whose global setup starts the real converter too), the browser tests (SKIP_BROWSER_TESTS=1 skips them), the
// README tour against a fresh service, typecheck, lint (ESLint), unused code (knip), OpenAPI lint and the typed client. LibreOffice (and, for the
// browser stage, Chromium) is installed with apt-get when missing and possible; each stage prints its time.
// The Worker stage mostly waits (queues, alarms, the converter), so the stages that start no service of their own
// (script tests, typecheck, format, lint, knip) run beside it; each prints its output when it ends.
import { spawn } from "node:child_process";
import path from "node:path";
import { BIN, ROOT, run } from "./lib/proc.mjs";
import { ensureLibreOffice } from "./lib/libreoffice.mjs";
import { buildAssets } from "./build-assets.mjs";

const problem = ensureLibreOffice();
if (problem) {
  console.error(`\nnpm test needs LibreOffice for the PDF converter tests.\n${problem}\n`);
  process.exit(1);
}

buildAssets();
const vitest = path.join(BIN, "vitest");
const extra = process.argv.slice(2);
const skipBrowser = /^(1|true|yes)$/i.test(process.env.SKIP_BROWSER_TESTS ?? "");
const timings = [];
/** One stage: its title, then its time (the README's table of stages quotes these). */
async function stage(title, fn) {
  console.log(`\n▶ ${title}`);
  const t0 = Date.now();
  await fn();
  const s = ((Date.now() - t0) / 1000).toFixed(0);
  timings.push(`${title.split(" (")[0]}: ${s} s`);
  console.log(`  (${s} s)`);
}

/** A command run to completion with its output kept, to print whole when it ends; resolves to its output or rejects. */
function quietRun(cmd, args) {
  return new Promise((resolve, reject) => {
    const child = spawn(cmd, args, { cwd: ROOT, stdio: ["ignore", "pipe", "pipe"], env: process.env });
    let out = "";
    child.stdout.on("data", (d) => (out += d));
    child.stderr.on("data", (d) => (out += d));
    child.on("error", reject);
    child.on("close", (code) =>
      code === 0
        ? resolve(out)
        : reject(Object.assign(new Error(`${cmd} ${args.join(" ")} exited with ${code}`), { out })),
    );
  });
}

/** A command run to completion with the terminal as its output, without blocking the stages running beside it. */
function runInherited(cmd, args) {
  return new Promise((resolve, reject) => {
    const child = spawn(cmd, args, { cwd: ROOT, stdio: "inherit", env: process.env });
    child.on("error", reject);
    child.on("close", (code) =>
      code === 0 ? resolve() : reject(new Error(`${cmd} ${args.join(" ")} exited with ${code}`)),
    );
  });
}

/** A stage that runs beside the Worker stage: its commands one after another, its output and time printed at its end. */
async function besideStage(title, commands) {
  const t0 = Date.now();
  let out = "";
  let failure = null;
  try {
    for (const [cmd, args] of commands) out += await quietRun(cmd, args);
  } catch (err) {
    out += err.out ?? "";
    failure = err;
  }
  const s = ((Date.now() - t0) / 1000).toFixed(0);
  timings.push(`${title.split(" (")[0]}: ${s} s (beside the Worker stage)`);
  console.log(`\n▶ ${title} — ran beside the Worker stage\n${out.trimEnd()}\n  (${s} s)`);
  if (failure) throw failure;
}

const tools = path.join(ROOT, "scripts", "lib", "tools.mjs");
/** The stages that start no service: they share the machine with the Worker stage instead of waiting for it. */
function besideStages() {
  return [
    besideStage("script tests (deploy:check, npm start's process tree, the packed client; node --test scripts/test/)", [
      [process.execPath, ["--test", path.join(ROOT, "scripts", "test", "*.test.mjs")]],
    ]),
    besideStage("typecheck, format, lint, unused code (tsc; Prettier, 120 columns; ESLint, eslint.config.mjs; knip)", [
      [path.join(BIN, "tsc"), ["--noEmit", "-p", "."]],
      [path.join(BIN, "tsc"), ["--noEmit", "-p", "converter"]],
      [
        process.execPath,
        [tools, "prettier", "--check", "--log-level", "warn", "src", "test", "scripts", "converter", "client"],
      ],
      [process.execPath, [tools, "eslint", "--max-warnings", "0", "src", "test"]],
      [process.execPath, [tools, "knip", "--no-progress"]],
    ]),
  ];
}

try {
  // Installs tools/node_modules once, before stages run beside each other (ESLint, Prettier and knip live there).
  run(process.execPath, [tools, "eslint", "--version"], { quiet: true });
  // A failing stage beside the Worker stage is reported once the Worker stage ends, never left unhandled.
  const beside = Promise.allSettled(besideStages());
  await stage("Worker tests (workerd, D1, R2, Durable Objects, Queues)", () => runInherited(vitest, ["run", ...extra]));
  for (const r of await beside) if (r.status === "rejected") throw r.reason;
  // Not beside the Worker stage: its memory-limit test times an office process being killed and restarted, which a
  // machine busy with the Worker stage slows past the test's bounds.
  await stage("converter tests (real LibreOffice)", () =>
    runInherited(vitest, ["run", "--root", path.join(ROOT, "converter"), ...extra]),
  );
  if (skipBrowser) console.log("\n▶ reader site and /docs in a real browser: skipped (SKIP_BROWSER_TESTS)");
  else {
    // Imported here, so a run without the browser stage never loads puppeteer-core.
    const { runBrowserTests } = await import("./browser-test.mjs");
    await stage(
      "reader site, /docs (offline) and CORS from other origins in a real browser (Chromium, puppeteer-core, axe-core)",
      () => runBrowserTests(),
    );
  }
  await stage("README tour (a fresh service like npm start, every ```sh block of README.md)", () =>
    run(process.execPath, [path.join(ROOT, "scripts", "readme-tour.mjs")]),
  );
  await stage("OpenAPI lint (Spectral: spectral:oas + OWASP; Redocly: recommended) of the served document", () =>
    run(process.execPath, [path.join(ROOT, "scripts", "openapi-lint.mjs")]),
  );
  await stage("typed client: generated types match the served /openapi.json, and typecheck", () => {
    run(process.execPath, [path.join(ROOT, "scripts", "client-generate.mjs"), "--check"]);
    run(path.join(ROOT, "client", "node_modules", ".bin", "tsc"), ["--noEmit", "-p", "client"]);
  });
  await stage("the typed client's tour and the README's y-websocket examples against a running service", () =>
    run(process.execPath, [path.join(ROOT, "scripts", "client-test.mjs")]),
  );
  console.log(`\n✓ npm test passed. ${timings.join("; ")}`);
} catch (err) {
  console.error(`\n${err.message}`);
  process.exit(1);
}
