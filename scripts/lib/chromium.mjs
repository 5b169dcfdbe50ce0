// Finding Debian's Chromium for the browser test, and installing it from Debian's packages when it is missing and
// this machine allows (as scripts/lib/libreoffice.mjs does for LibreOffice). No browser is ever downloaded by npm.
import { existsSync } from "node:fs";
import { spawnSync } from "node:child_process";

export const CHROMIUM = process.env.CHROMIUM_PATH || "/usr/bin/chromium";
export const APT_PACKAGES = ["chromium", "fonts-liberation"];

/** Returns null when Chromium is ready, else the reason it is not. */
export function ensureChromium({ log = console.log } = {}) {
  if (existsSync(CHROMIUM)) return null;
  const isRoot = typeof process.getuid === "function" && process.getuid() === 0;
  const hasApt = spawnSync("sh", ["-c", "command -v apt-get"]).status === 0;
  if (!isRoot || !hasApt) {
    return `Chromium (${CHROMIUM}) is not installed and cannot be installed here (${!hasApt ? "no apt-get" : "not root"}). Install: sudo apt-get install -y --no-install-recommends ${APT_PACKAGES.join(" ")}`;
  }
  log(`Installing Chromium from Debian's packages: ${APT_PACKAGES.join(" ")}`);
  const env = { ...process.env, DEBIAN_FRONTEND: "noninteractive" };
  if (spawnSync("apt-get", ["update", "-qq"], { stdio: "inherit", env }).status !== 0)
    return "apt-get update failed; see the output above";
  const install = spawnSync("apt-get", ["install", "-y", "-qq", "--no-install-recommends", ...APT_PACKAGES], {
    stdio: "inherit",
    env,
  });
  if (install.status !== 0 || !existsSync(CHROMIUM)) return "apt-get install of Chromium failed; see the output above";
  return null;
}

/** The launch flags of the browser test: headless, sandbox-less (containers), and nothing that phones home. */
export function chromiumArgs(userDataDir) {
  return [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--no-first-run",
    "--disable-sync",
    "--disable-dev-shm-usage",
    `--user-data-dir=${userDataDir}`,
  ];
}
