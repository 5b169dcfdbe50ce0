// Test-only and maintenance tools (tools/package.json: Spectral, Redocly, puppeteer-core, axe-core, drizzle-kit)
// live in tools/node_modules, installed the first time a script needs them (npm ci from tools/package-lock.json),
// so `npm install` stays small. Run one directly: node scripts/lib/tools.mjs <bin> [args…]
import { spawnSync } from "node:child_process";
import { existsSync, statSync } from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { ROOT } from "./proc.mjs";

export const TOOLS = path.join(ROOT, "tools");
export const TOOLS_BIN = path.join(TOOLS, "node_modules", ".bin");

/** npm itself: the one running this script (npm_execpath) when there is one, else npm on PATH. */
export function npmCommand() {
  const cli = process.env.npm_execpath;
  return cli && /\.c?js$/.test(cli) ? [process.execPath, cli] : ["npm"];
}

/** Installs tools/node_modules when it is missing or older than tools/package-lock.json. */
export function ensureTools({ log = console.log } = {}) {
  const marker = path.join(TOOLS, "node_modules", ".package-lock.json");
  const lock = path.join(TOOLS, "package-lock.json");
  if (existsSync(marker) && statSync(marker).mtimeMs >= statSync(lock).mtimeMs) return;
  log(
    "• Installing the test-only tools once (tools/package.json: lint, browser test, migrations) into tools/node_modules",
  );
  const [cmd, ...pre] = npmCommand();
  const res = spawnSync(cmd, [...pre, "ci", "--no-audit", "--no-fund", "--loglevel=error"], {
    cwd: TOOLS,
    stdio: "inherit",
    // No install analytics, no browser download (the browser test drives Debian's Chromium).
    env: {
      ...process.env,
      SCARF_ANALYTICS: "false",
      DO_NOT_TRACK: "1",
      PUPPETEER_SKIP_DOWNLOAD: "true",
      npm_config_update_notifier: "false",
    },
  });
  if (res.status !== 0) throw new Error(`npm ci in ${TOOLS} failed (exit ${res.status}); its output is above`);
}

/** A tool package's file path (e.g. axe-core/axe.min.js) or entry point. */
export function toolPath(specifier) {
  ensureTools();
  return createRequire(path.join(TOOLS, "package.json")).resolve(specifier);
}

/** import() of a tool package; its default export when it is a CommonJS module. */
export async function importTool(specifier) {
  const mod = await import(pathToFileURL(toolPath(specifier)).href);
  return mod.default ?? mod;
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const [bin, ...args] = process.argv.slice(2);
  if (!bin) {
    console.error("usage: node scripts/lib/tools.mjs <bin> [args…]   (a bin of tools/node_modules/.bin)");
    process.exit(2);
  }
  ensureTools();
  const res = spawnSync(path.join(TOOLS_BIN, bin), args, { cwd: ROOT, stdio: "inherit" });
  process.exit(res.status ?? 1);
}
