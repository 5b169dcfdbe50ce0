// npm run lint:openapi: Spectral (spectral:oas + OWASP, .spectral.yaml) and Redocly (recommended, redocly.yaml) over
// the OpenAPI document exactly as the Worker serves it; fails on any error.
import { spawnSync } from "node:child_process";
import path from "node:path";
import { ROOT } from "./lib/proc.mjs";
import { ensureTools, TOOLS_BIN } from "./lib/tools.mjs";
import { writeServedDocument } from "./lib/openapi-doc.mjs";

ensureTools(); // Spectral and Redocly live in tools/node_modules
const { file, cleanup } = await writeServedDocument();
let failed = false;
try {
  const runTool = (name, args) => {
    console.log(`\n▶ ${name}`);
    const res = spawnSync(path.join(TOOLS_BIN, name), args, {
      cwd: ROOT,
      stdio: "inherit",
      env: { ...process.env, REDOCLY_TELEMETRY: "off", REDOCLY_SUPPRESS_UPDATE_NOTICE: "true" },
    });
    if (res.status !== 0) failed = true;
  };
  runTool("spectral", [
    "lint",
    file,
    "--ruleset",
    path.join(ROOT, ".spectral.yaml"),
    "--fail-severity",
    "error",
    ...process.argv.slice(2),
  ]);
  runTool("redocly", ["lint", file, "--config", path.join(ROOT, "redocly.yaml")]);
} finally {
  cleanup();
}
process.exit(failed ? 1 : 0);
