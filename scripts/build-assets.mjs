// Fills public/ (the Worker's static assets, wrangler.toml [assets]) so /docs needs nothing from the network at
// run time: Scalar's standalone API-reference bundle is served as /docs/scalar.js.
//
// That one 3.5 MB file is all /docs needs, so it is not a dependency (the @scalar/api-reference package would
// bring about 170 MB: icons, an agent chat, Vue). package.json's "docsBundle" pins the package, version, file
// and the tarball's sha512; the first run fetches that tarball with `npm pack` (the registry npm install uses),
// checks the hash, and keeps the file in .cache/docs-bundle/ (not committed). After that it works offline.
// Runs from npm start, npm run dev, npm test, deploy:check, the benches and vitest.config.ts; public/ is not committed.
import { spawnSync } from "node:child_process";
import { createHash } from "node:crypto";
import {
  copyFileSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  statSync,
} from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
export const ASSETS_DIR = path.join(ROOT, "public");

function npmCommand() {
  const cli = process.env.npm_execpath;
  return cli && /\.c?js$/.test(cli) ? [process.execPath, cli] : ["npm"];
}

/** The pinned bundle file, fetched and verified once into .cache/docs-bundle/. */
export function docsBundle() {
  const spec = JSON.parse(readFileSync(path.join(ROOT, "package.json"), "utf8")).docsBundle;
  const cached = path.join(
    ROOT,
    ".cache",
    "docs-bundle",
    `${spec.package.replace(/[@/]/g, "_")}-${spec.version}-${path.basename(spec.file)}`,
  );
  if (existsSync(cached)) return cached;
  const tmp = mkdtempSync(path.join(os.tmpdir(), "docs-bundle-"));
  try {
    const [cmd, ...pre] = npmCommand();
    const pack = spawnSync(
      cmd,
      [...pre, "pack", `${spec.package}@${spec.version}`, "--pack-destination", tmp, "--silent"],
      { cwd: tmp, encoding: "utf8" },
    );
    const tgz = existsSync(tmp) ? readdirSync(tmp).find((f) => f.endsWith(".tgz")) : undefined;
    if (pack.status !== 0 || !tgz)
      throw new Error(
        `npm pack ${spec.package}@${spec.version} failed (the /docs bundle is fetched once, then cached):\n${pack.stderr}`,
      );
    const digest = `sha512-${createHash("sha512")
      .update(readFileSync(path.join(tmp, tgz)))
      .digest("base64")}`;
    if (digest !== spec.integrity)
      throw new Error(`${tgz} does not match package.json's docsBundle.integrity (${digest})`);
    const untar = spawnSync("tar", ["-xzf", path.join(tmp, tgz), "-C", tmp, `package/${spec.file}`], {
      encoding: "utf8",
    });
    if (untar.status !== 0) throw new Error(`tar could not extract package/${spec.file} from ${tgz}: ${untar.stderr}`);
    mkdirSync(path.dirname(cached), { recursive: true });
    copyFileSync(path.join(tmp, "package", spec.file), `${cached}.part`);
    renameSync(`${cached}.part`, cached);
    return cached;
  } finally {
    rmSync(tmp, { recursive: true, force: true });
  }
}

export function buildAssets() {
  const files = [{ from: docsBundle(), to: path.join(ASSETS_DIR, "docs", "scalar.js") }];
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
