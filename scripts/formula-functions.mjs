// npm run formula:functions [-- --list]: how many spreadsheet functions a formula may call (the adapter's
// catalog, src/services/formula/functions.ts, built from @formulajs/formulajs), optionally with their arity.
// The TypeScript module is bundled with esbuild (wrangler's own bundler) and imported, so the number printed
// is exactly what the Worker accepts.
import path from "node:path";
import { build } from "esbuild";
import { ROOT } from "./lib/proc.mjs";

const out = await build({
  entryPoints: [path.join(ROOT, "src/services/formula/functions.ts")],
  bundle: true,
  format: "esm",
  platform: "neutral",
  mainFields: ["module", "main"],
  write: false,
  logLevel: "error",
});
const mod = await import(`data:text/javascript;base64,${Buffer.from(out.outputFiles[0].text).toString("base64")}`);
const catalog = mod.FUNCTION_CATALOG;
const distinct = new Set([...catalog.values()].map((f) => f.impl)).size;

if (process.argv.includes("--list")) {
  for (const f of [...catalog.values()].sort((a, b) => a.name.localeCompare(b.name))) {
    const max = f.max === Infinity ? "…" : f.max;
    console.log(`${f.name}(${f.min === f.max ? f.min : `${f.min}-${max}`})`);
  }
}
console.log(
  `${catalog.size} functions accepted (${distinct} distinct implementations; some are spreadsheet aliases such as CONCAT/CONCATENATE)`,
);
