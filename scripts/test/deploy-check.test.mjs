// npm run deploy:check against the committed wrangler.toml and against variants a deploy must not ship.
// Runs the real script (configuration checks only: --config-only; the bundle step is wrangler's own dry run).
// node --test scripts/test/ (npm test runs it in its "scripts" stage).
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { after, describe, test } from "node:test";
import { ROOT } from "../lib/proc.mjs";

// The committed file with its relative paths made absolute, so a copy in a scratch directory reads the same.
const committed = readFileSync(path.join(ROOT, "wrangler.toml"), "utf8")
  .replace(/^main = "(.*)"$/m, (_, p) => `main = "${path.join(ROOT, p)}"`)
  .replace(/^(directory|image|migrations_dir) = "(.*)"$/gm, (_, k, p) => `${k} = "${path.join(ROOT, p)}"`);
const dir = mkdtempSync(path.join(os.tmpdir(), "deploy-check-test-"));
after(() => rmSync(dir, { recursive: true, force: true }));

let n = 0;
function check(toml, extra = []) {
  const file = path.join(dir, `wrangler-${n++}.toml`);
  writeFileSync(file, toml);
  const res = spawnSync(
    process.execPath,
    [path.join(ROOT, "scripts", "deploy-check.mjs"), "--config", file, "--config-only", ...extra],
    { encoding: "utf8" },
  );
  return { code: res.status, out: `${res.stdout}${res.stderr}` };
}
const withVars = (extra) => committed.replace(/^\[vars\]\n/m, `[vars]\n${extra}\n`);

describe("deploy:check", { concurrency: true }, () => {
  test("the committed configuration passes and lists every check", () => {
    const { code, out } = check(committed);
    assert.equal(code, 0, out);
    for (const name of [
      "ENVIRONMENT",
      "local-only variables",
      "CONVERTER_URL",
      "WEBHOOK_ALLOWED_ORIGINS",
      "CORS_ALLOWED_ORIGINS",
      "no secret in [vars]",
      "D1 database ids",
      "[secrets] required",
    ]) {
      assert.match(
        out,
        new RegExp(`✓ ${name.replace(/[[\]]/g, "\\$&")}:`),
        `check "${name}" listed as passed:\n${out}`,
      );
    }
    assert.match(out, /ENVIRONMENT: "production"/);
    // Production allows no browser origin unless the deployment lists some.
    assert.match(out, /✓ CORS_ALLOWED_ORIGINS: empty: no browser origin may call the API cross-origin/);
  });

  test('ENVIRONMENT = "development" is refused', () => {
    const { code, out } = check(committed.replace(/^ENVIRONMENT = "production"$/m, 'ENVIRONMENT = "development"'));
    assert.equal(code, 1, out);
    assert.match(out, /✗ ENVIRONMENT: "development" is a development setting/);
  });

  test("an [env.*] section selected with --env is checked as resolved", () => {
    const { code, out } = check(`${committed}\n[env.staging.vars]\nENVIRONMENT = "test"\n`, ["--env", "staging"]);
    assert.equal(code, 1, out);
    assert.match(out, /✗ ENVIRONMENT: "test"/);
  });

  test("a placeholder D1 database id is refused", () => {
    const { code, out } = check(
      committed.replace(/^preview_database_id = .*$/m, '$&\ndatabase_id = "00000000-0000-0000-0000-000000000000"'),
    );
    assert.equal(code, 1, out);
    assert.match(out, /✗ D1 database ids: DB: database_id "0{8}-0{4}-0{4}-0{4}-0{12}" is a placeholder/);
  });

  test("a secret in [vars], a local converter, a loopback webhook origin and the bench latency are refused", () => {
    const { code, out } = check(
      withVars(
        'PARTNER_API_TOKEN = "abc"\nCONVERTER_URL = "http://127.0.0.1:9000"\nWEBHOOK_ALLOWED_ORIGINS = "http://127.0.0.1:9999"\nD1_LATENCY_MS = "50"',
      ),
    );
    assert.equal(code, 1, out);
    assert.match(out, /✗ no secret in \[vars\]: PARTNER_API_TOKEN/);
    assert.match(out, /✗ CONVERTER_URL: "http:\/\/127\.0\.0\.1:9000" is a local address/);
    assert.match(out, /✗ WEBHOOK_ALLOWED_ORIGINS: http:\/\/127\.0\.0\.1:9999/);
    assert.match(out, /✗ local-only variables: D1_LATENCY_MS/);
  });

  test("CORS_ALLOWED_ORIGINS: `*`, a path and a local or plain-http origin are refused; exact https origins pass", () => {
    const withCors = (v) => committed.replace(/^CORS_ALLOWED_ORIGINS = .*$/m, `CORS_ALLOWED_ORIGINS = "${v}"`);
    let { code, out } = check(withCors("*"));
    assert.equal(code, 1, out);
    assert.match(out, /✗ CORS_ALLOWED_ORIGINS: "\*" is not an exact origin.*never `\*`/);
    ({ code, out } = check(withCors("https://app.example.com/editor")));
    assert.equal(code, 1, out);
    assert.match(out, /✗ CORS_ALLOWED_ORIGINS: "https:\/\/app\.example\.com\/editor" is not an exact origin/);
    ({ code, out } = check(withCors("https://app.example.com,http://localhost:5173")));
    assert.equal(code, 1, out);
    assert.match(out, /✗ CORS_ALLOWED_ORIGINS: http:\/\/localhost:5173: a local or plain-http origin/);
    ({ code, out } = check(withCors("https://app.example.com, https://admin.example.com")));
    assert.equal(code, 0, out);
    assert.match(out, /✓ CORS_ALLOWED_ORIGINS: https:\/\/app\.example\.com, https:\/\/admin\.example\.com/);
  });

  test("an undeclared secret is refused", () => {
    const { code, out } = check(committed.replace(/^required = .*$/m, 'required = ["ADMIN_TOKEN"]'));
    assert.equal(code, 1, out);
    assert.match(out, /✗ \[secrets\] required: SIGNING_SECRET, CONVERTER_SECRET not declared/);
  });

  test("--secrets-file: a missing or test-value secret is refused, a complete file passes", () => {
    const bad = path.join(dir, "bad.env");
    writeFileSync(bad, 'ADMIN_TOKEN="test-admin-token"\nSIGNING_SECRET=0123456789abcdef0123\n');
    const r1 = check(committed, ["--secrets-file", bad]);
    assert.equal(r1.code, 1, r1.out);
    assert.match(r1.out, /ADMIN_TOKEN is a test value.*CONVERTER_SECRET missing/);
    const good = path.join(dir, "good.json");
    writeFileSync(
      good,
      JSON.stringify({ ADMIN_TOKEN: "a".repeat(32), SIGNING_SECRET: "b".repeat(32), CONVERTER_SECRET: "c".repeat(32) }),
    );
    const r2 = check(committed, ["--secrets-file", good]);
    assert.equal(r2.code, 0, r2.out);
    assert.match(r2.out, /✓ secrets in .*good\.json: every required secret has a value/);
  });
});
