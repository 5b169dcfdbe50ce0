// Fills public/ (the Worker's static assets, wrangler.toml [assets]) with files taken from node_modules, so /docs
// needs nothing from the network: Scalar's standalone API-reference bundle is served as /docs/scalar.js.
// Runs from npm start, npm run dev, npm test, the benches and vitest.config.ts; public/ is not committed.
import { copyFileSync, mkdirSync, statSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
export const ASSETS_DIR = path.join(ROOT, "public");

const files = [
  { from: path.join(ROOT, "node_modules", "@scalar", "api-reference", "dist", "browser", "standalone.js"), to: path.join(ASSETS_DIR, "docs", "scalar.js") },
];

export function buildAssets() {
  for (const { from, to } of files) {
    const src = statSync(from);
    let dst;
    try {
      dst = statSync(to);
    } catch {}
    if (dst && dst.size === src.size && dst.mtimeMs >= src.mtimeMs) continue;
    mkdirSync(path.dirname(to), { recursive: true });
    copyFileSync(from, to);
  }
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) buildAssets();
