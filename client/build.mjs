// The client's build (npm run build in client/, and npm pack's prepack): tsc compiles src/ to ESM JavaScript with
// declarations in dist/; src/schema.d.ts (types only, generated from /openapi.json) is copied beside them, since
// tsc never copies .d.ts inputs. dist/ is emptied first so nothing stale is packed. Output goes to stderr, so
// `npm pack --json` keeps a clean stdout.
import { spawnSync } from "node:child_process";
import { copyFileSync, existsSync, rmSync } from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";
import { fileURLToPath } from "node:url";

const here = path.dirname(fileURLToPath(import.meta.url));
const dist = path.join(here, "dist");
rmSync(dist, { recursive: true, force: true });
const tsc = createRequire(path.join(here, "package.json")).resolve("typescript/bin/tsc");
const res = spawnSync(process.execPath, [tsc, "-p", path.join(here, "tsconfig.build.json")], {
  stdio: ["ignore", process.stderr, process.stderr],
});
if (res.status !== 0) process.exit(res.status ?? 1);
copyFileSync(path.join(here, "src", "schema.d.ts"), path.join(dist, "schema.d.ts"));
for (const f of ["index.js", "index.d.ts", "schema.d.ts"]) {
  if (!existsSync(path.join(dist, f))) throw new Error(`client build: dist/${f} is missing`);
}
console.error("client build: dist/index.js, dist/index.d.ts, dist/schema.d.ts");
