// npm test: the converter's own tests against real LibreOffice, then every Worker test inside workerd
// (whose global setup starts the real converter too), then the README tour against a fresh service. LibreOffice is installed when missing and possible.
import path from "node:path";
import { BIN, ROOT, run } from "./lib/proc.mjs";
import { ensureLibreOffice } from "./lib/libreoffice.mjs";
import { runBrowserTests } from "./browser-test.mjs";
import { buildAssets } from "./build-assets.mjs";

const problem = ensureLibreOffice();
if (problem) {
  console.error(`\nnpm test needs LibreOffice for the PDF converter tests.\n${problem}\n`);
  process.exit(1);
}

buildAssets();
const vitest = path.join(BIN, "vitest");
const extra = process.argv.slice(2);
try {
  console.log("\n▶ script tests (deploy:check, npm start's process tree; node --test scripts/test/)");
  run(process.execPath, ["--test", path.join(ROOT, "scripts", "test")]);
  console.log("\n▶ converter tests (real LibreOffice)");
  run(vitest, ["run", "--root", path.join(ROOT, "converter"), ...extra]);
  console.log("\n▶ Worker tests (workerd, D1, R2, Durable Objects, Queues)");
  run(vitest, ["run", ...extra]);
  console.log("\n▶ reader site and /docs (offline) in a real browser (Chromium, puppeteer-core, axe-core)");
  await runBrowserTests();
  console.log("\n▶ README tour (a fresh service like npm start, every ```sh block of README.md)");
  run(process.execPath, [path.join(ROOT, "scripts", "readme-tour.mjs")]);
  console.log("\n▶ typecheck");
  run(path.join(BIN, "tsc"), ["--noEmit", "-p", "."]);
  run(path.join(BIN, "tsc"), ["--noEmit", "-p", "converter"]);
  console.log("\n▶ OpenAPI lint (Spectral: spectral:oas + OWASP; Redocly: recommended) of the served document");
  run(process.execPath, [path.join(ROOT, "scripts", "openapi-lint.mjs")]);
  console.log("\n▶ typed client: generated types match the served /openapi.json, and typecheck");
  run(process.execPath, [path.join(ROOT, "scripts", "client-generate.mjs"), "--check"]);
  run(path.join(ROOT, "client", "node_modules", ".bin", "tsc"), ["--noEmit", "-p", "client"]);
  console.log("\n▶ the typed client's tour against a running service");
  run(process.execPath, [path.join(ROOT, "scripts", "client-test.mjs")]);
} catch (err) {
  console.error(`\n${err.message}`);
  process.exit(1);
}
