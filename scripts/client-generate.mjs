// npm run client:generate: client/src/schema.d.ts from the OpenAPI document the Worker serves (openapi-typescript).
// `--check` regenerates into a temporary file and fails when the checked-in types differ (run by npm test).
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { ROOT, run } from "./lib/proc.mjs";
import { servedDocument } from "./lib/openapi-doc.mjs";

const TARGET = path.join(ROOT, "client", "src", "schema.d.ts");
const check = process.argv.includes("--check");

export async function generateClientTypes(outFile) {
  const dir = mkdtempSync(path.join(os.tmpdir(), "client-gen-"));
  try {
    const input = path.join(dir, "openapi.json");
    writeFileSync(input, JSON.stringify(await servedDocument()));
    // openapi-typescript needs TypeScript 5's JS API, installed in the client workspace only.
    run(
      path.join(ROOT, "client", "node_modules", ".bin", "openapi-typescript"),
      [input, "--output", outFile, "--alphabetize"],
      { quiet: true },
    );
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** client/package.json records the info.version of the document its types come from (openapi.infoVersion). */
async function checkInfoVersion() {
  const served = (await servedDocument()).info.version;
  const recorded = JSON.parse(readFileSync(path.join(ROOT, "client", "package.json"), "utf8")).openapi?.infoVersion;
  if (served !== recorded) {
    console.error(
      `client/package.json openapi.infoVersion is ${JSON.stringify(recorded)}, the served /openapi.json says ${JSON.stringify(served)}: update it.`,
    );
    process.exit(1);
  }
}

if (check) {
  await checkInfoVersion();
  const dir = mkdtempSync(path.join(os.tmpdir(), "client-check-"));
  const fresh = path.join(dir, "schema.d.ts");
  try {
    await generateClientTypes(fresh);
    let current = "";
    try {
      current = readFileSync(TARGET, "utf8");
    } catch {}
    if (current !== readFileSync(fresh, "utf8")) {
      console.error(
        "client/src/schema.d.ts differs from the served /openapi.json: run `npm run client:generate` and commit it.",
      );
      process.exit(1);
    }
    console.log("client/src/schema.d.ts matches the served /openapi.json");
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
} else {
  await generateClientTypes(TARGET);
  console.log(`wrote ${path.relative(ROOT, TARGET)}`);
}
