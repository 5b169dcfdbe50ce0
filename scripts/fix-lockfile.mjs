// The npm registry mirror on our build machines serves only the Linux builds of workerd, so `npm install`
// writes a lockfile without the macOS/Windows optional packages and `npm ci` then refuses it as out of sync.
// This restores their entries (never installed on Linux: npm skips optional packages of another os/cpu).
// Run after any `npm install` that rewrites package-lock.json: node scripts/fix-lockfile.mjs
import { readFileSync, writeFileSync } from "node:fs";

const PLATFORMS = {
  "@cloudflare/workerd-darwin-64": { os: ["darwin"], cpu: ["x64"] },
  "@cloudflare/workerd-darwin-arm64": { os: ["darwin"], cpu: ["arm64"] },
  "@cloudflare/workerd-linux-64": { os: ["linux"], cpu: ["x64"] },
  "@cloudflare/workerd-linux-arm64": { os: ["linux"], cpu: ["arm64"] },
  "@cloudflare/workerd-windows-64": { os: ["win32"], cpu: ["x64"] },
};

const file = new URL("../package-lock.json", import.meta.url);
const lock = JSON.parse(readFileSync(file, "utf8"));
let added = 0;
for (const [path, entry] of Object.entries(lock.packages)) {
  if (!path.endsWith("node_modules/workerd") || !entry.optionalDependencies) continue;
  const base = path.slice(0, -"workerd".length);
  for (const [name, version] of Object.entries(entry.optionalDependencies)) {
    const key = base + name;
    if (lock.packages[key] || !PLATFORMS[name]) continue;
    const { os, cpu } = PLATFORMS[name];
    // Members in the order npm itself writes them, so a later `npm install` leaves the file as it is.
    lock.packages[key] = {
      version,
      cpu,
      dev: entry.dev,
      license: "Apache-2.0",
      optional: true,
      os,
      engines: { node: ">=16" },
    };
    added += 1;
  }
}
const sorted = Object.fromEntries(
  Object.entries(lock.packages).sort(([a], [b]) => (a === "" ? -1 : b === "" ? 1 : a.localeCompare(b))),
);
lock.packages = sorted;
writeFileSync(file, JSON.stringify(lock, null, 2) + "\n");
console.log(`package-lock.json: restored ${added} optional platform entr${added === 1 ? "y" : "ies"}`);
