// Finding LibreOffice, and installing it from Debian's packages when it is missing and this machine allows.
import { spawnSync } from "node:child_process";

export const APT_PACKAGES = [
  "libreoffice-writer-nogui",
  "python3-uno",
  "fonts-liberation",
  "fonts-crosextra-carlito",
  "fonts-crosextra-caladea",
];

export function hasLibreOffice() {
  const soffice = spawnSync("sh", ["-c", "command -v soffice"], { encoding: "utf8" });
  const uno = spawnSync("/usr/bin/python3", ["-c", "import uno"], { encoding: "utf8" });
  return soffice.status === 0 && uno.status === 0;
}

/** Returns null when LibreOffice is ready, else the reason it is not. */
export function ensureLibreOffice({ log = console.log } = {}) {
  if (hasLibreOffice()) return null;
  const isRoot = typeof process.getuid === "function" && process.getuid() === 0;
  const hasApt = spawnSync("sh", ["-c", "command -v apt-get"]).status === 0;
  if (!isRoot || !hasApt) {
    return `LibreOffice (soffice and python3-uno) is not installed and cannot be installed here (${!hasApt ? "no apt-get" : "not root"}). Install: sudo apt-get install -y --no-install-recommends ${APT_PACKAGES.join(" ")}`;
  }
  log(`Installing LibreOffice from Debian's packages (about 30 s): ${APT_PACKAGES.join(" ")}`);
  const env = { ...process.env, DEBIAN_FRONTEND: "noninteractive" };
  const update = spawnSync("apt-get", ["update", "-qq"], { stdio: "inherit", env });
  if (update.status !== 0) return "apt-get update failed; see the output above";
  const install = spawnSync("apt-get", ["install", "-y", "-qq", "--no-install-recommends", ...APT_PACKAGES], {
    stdio: "inherit",
    env,
  });
  if (install.status !== 0 || !hasLibreOffice()) return "apt-get install of LibreOffice failed; see the output above";
  return null;
}
