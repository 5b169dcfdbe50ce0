// npm test: the script tests, the converter's own tests against real LibreOffice, every Worker test inside workerd
// (whose global setup starts the real converter too), the browser tests (SKIP_BROWSER_TESTS=1 skips them), the
// README tour against a fresh service, typecheck, lint (ESLint), unused code (knip), OpenAPI lint and the typed client. LibreOffice (and, for the
// browser stage, Chromium) is installed with apt-get when missing and possible; each stage prints its time.
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
try {
  await stage(
    "script tests (deploy:check, npm start's process tree, the packed client; node --test scripts/test/)",
    () => run(process.execPath, ["--test", path.join(ROOT, "scripts", "test", "*.test.mjs")]),
  );
  await stage("converter tests (real LibreOffice)", () =>
    run(vitest, ["run", "--root", path.join(ROOT, "converter"), ...extra]),
  );
  await stage("Worker tests (workerd, D1, R2, Durable Objects, Queues)", () => run(vitest, ["run", ...extra]));
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
  await stage("typecheck", () => {
    run(path.join(BIN, "tsc"), ["--noEmit", "-p", "."]);
    run(path.join(BIN, "tsc"), ["--noEmit", "-p", "converter"]);
  });
  await stage("format (Prettier, .prettierrc.json: 120 columns; npm run format fixes it)", () =>
    run(process.execPath, [
      path.join(ROOT, "scripts", "lib", "tools.mjs"),
      "prettier",
      "--check",
      "--log-level",
      "warn",
      "src",
      "test",
      "scripts",
      "converter",
      "client",
    ]),
  );
  await stage("lint (ESLint + typescript-eslint, eslint.config.mjs: import direction of the layers)", () =>
    run(process.execPath, [
      path.join(ROOT, "scripts", "lib", "tools.mjs"),
      "eslint",
      "--max-warnings",
      "0",
      "src",
      "test",
    ]),
  );
  await stage("unused files, exports, types and dependencies (knip, knip.jsonc)", () =>
    run(process.execPath, [path.join(ROOT, "scripts", "lib", "tools.mjs"), "knip", "--no-progress"]),
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
