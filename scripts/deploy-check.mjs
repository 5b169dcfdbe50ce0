// npm run deploy:check: what `wrangler deploy` would upload, built and checked without an account, a network
// or Docker. `--containers-rollout=none` leaves the PDF converter's container image out (building it is the
// only step of a real deploy that needs Docker); everything else — bundling, bindings, Durable Object
// migrations — is checked as on a deploy. Prints the bundle size against the Workers limits.
import { spawnSync } from "node:child_process";
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { gzipSync } from "node:zlib";
import { BIN, ROOT } from "./lib/proc.mjs";

const outdir = mkdtempSync(path.join(os.tmpdir(), "deploy-check-"));
const res = spawnSync(path.join(BIN, "wrangler"), ["deploy", "--dry-run", "--containers-rollout=none", "--outdir", outdir], {
  cwd: ROOT,
  stdio: "inherit",
  env: { ...process.env, CI: "1", WRANGLER_SEND_METRICS: "false", PATH: [BIN, process.env.PATH].join(path.delimiter) },
});
try {
  if (res.status !== 0) {
    console.error(`\n✗ wrangler deploy --dry-run failed (exit ${res.status}); its output is above.`);
    process.exit(1);
  }
  const files = readdirSync(outdir).filter((f) => /\.(m?js|wasm)$/.test(f));
  let raw = 0;
  let gz = 0;
  for (const f of files) {
    const bytes = readFileSync(path.join(outdir, f));
    raw += statSync(path.join(outdir, f)).size;
    gz += gzipSync(bytes, { level: 9 }).length;
  }
  const kib = (n) => `${(n / 1024).toFixed(0)} KiB`;
  console.log(
    `\n✓ Worker bundle: ${kib(raw)} (${kib(gz)} gzip) in ${files.length} file(s). ` +
      `Workers limits after compression: 3 MiB on the Free plan, 10 MiB on Paid.` +
      `\n  Not checked here: the container image (converter/Dockerfile), built by a real \`wrangler deploy\` with Docker.`,
  );
} finally {
  rmSync(outdir, { recursive: true, force: true });
}
