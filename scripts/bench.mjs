// npm run bench -- <name> [...]: runs scripts/bench/<name>.mjs; `all` (or no name) runs every bench in sequence,
// one at a time (each starts its own local API).
import { readdirSync } from "node:fs";
import path from "node:path";
import { ROOT } from "./lib/proc.mjs";

const dir = path.join(ROOT, "scripts", "bench");
// Not benches: shared helpers, and the load bench's floor Worker (a Worker module that wrangler bundles).
const available = readdirSync(dir)
  .filter((f) => f.endsWith(".mjs") && !["lib.mjs", "requestpath.mjs", "floor-worker.mjs"].includes(f))
  .map((f) => f.replace(/\.mjs$/, ""));
// Names come first; anything from the first `--option` on is passed to the bench (`formula-bounds --top 40`).
const firstOption = process.argv.slice(2).findIndex((a) => a.startsWith("--"));
const wanted = firstOption < 0 ? process.argv.slice(2) : process.argv.slice(2, 2 + firstOption);
const names = wanted.length === 0 || wanted.includes("all") ? available : wanted;
for (const name of names) {
  if (!available.includes(name)) {
    console.error(`unknown benchmark "${name}"; available: ${available.join(", ")}`);
    process.exit(2);
  }
}
for (const name of names) {
  console.log(`\n=== bench: ${name} ===`);
  const mod = await import(path.join(dir, `${name}.mjs`));
  await mod.default(process.argv.slice(3));
}
process.exit(0);
