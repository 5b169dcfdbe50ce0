// npm run deploy:check: what `wrangler deploy` would ship, checked without an account, a network or Docker.
//
// 1. The configuration (read by wrangler itself, so `--env <name>` sections resolve as on a deploy) against the
//    rules of a production deployment: no development switch, no local-only or bench-only variable, no secret
//    as a plain [vars] value, no placeholder D1 database id, every secret the Worker reads declared in
//    [secrets] required (so `wrangler deploy` refuses while one is unset) and, given `--secrets-file`, present
//    in that file with a real value. Each check is listed with its verdict; any failure exits 1.
// 2. `wrangler deploy --dry-run --containers-rollout=none`: bundling, bindings and Durable Object migrations
//    exactly as on a deploy, without the PDF converter's container image (building it is the only step of a real
//    deploy that needs Docker). Prints the bundle size against the Workers limits.
//
// Usage: node scripts/deploy-check.mjs [--config <wrangler.toml>] [--env <name>] [--secrets-file <file>]
//                                      [--config-only]   (skip step 2)
import { spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { gzipSync } from "node:zlib";
import { BIN, ROOT } from "./lib/proc.mjs";
import { corsOriginsProblem, parseCorsOrigins } from "./lib/cors-origins.mjs";

/** The secrets src/env.ts reads; each must be a wrangler secret in production, never a [vars] value. */
export const REQUIRED_SECRETS = ["ADMIN_TOKEN", "SIGNING_SECRET", "CONVERTER_SECRET"];
/** ENVIRONMENT values that switch on development behaviour (see docs/api-guide.md and src/services/automations/ssrf.ts). */
const DEV_ENVIRONMENTS = new Set(["development", "dev", "test", "local"]);
/** Variables only the bench or a local run sets. */
const LOCAL_ONLY_VARS = ["D1_LATENCY_MS"];
/** Values the local tooling uses (vitest.config.ts, the bench), which must never be production secrets. */
const KNOWN_DEV_SECRETS = new Set([
  "test-admin-token",
  "test-signing-secret",
  "bench-admin-token",
  "bench-signing-secret",
  "changeme",
  "secret",
]);

const isPlaceholderId = (id) => /^0{8}-0{4}-0{4}-0{4}-0{12}$/.test(id) || /placeholder|your[-_ ]|<|x{8}/i.test(id);
const isLocalHost = (host) =>
  /^(localhost|127\.|0\.0\.0\.0|\[?::1\]?$|10\.|192\.168\.|172\.(1[6-9]|2\d|3[01])\.)/i.test(host);

/** dotenv (KEY=value, KEY="value") or JSON, as wrangler's --secrets-file reads it. */
export function parseSecretsFile(text) {
  const trimmed = text.trim();
  if (trimmed.startsWith("{")) return JSON.parse(trimmed);
  const out = {};
  for (const line of text.split(/\r?\n/)) {
    const m = /^\s*(?:export\s+)?([A-Za-z_][A-Za-z0-9_]*)\s*=\s*(.*?)\s*$/.exec(line);
    if (!m) continue;
    let v = m[2];
    if ((v.startsWith('"') && v.endsWith('"')) || (v.startsWith("'") && v.endsWith("'"))) v = v.slice(1, -1);
    out[m[1]] = v;
  }
  return out;
}

/**
 * The configuration checks. `config` is wrangler's resolved configuration (unstable_readConfig); `secrets` the
 * parsed --secrets-file, if any. Returns [{ name, ok, detail }], one per check, in the order printed.
 */
export function checkConfig(config, { secrets, secretsFile } = {}) {
  const vars = { ...(config.vars ?? {}) };
  const checks = [];
  const add = (name, ok, detail) => checks.push({ name, ok, detail });

  const environment = vars.ENVIRONMENT;
  if (environment === undefined) add("ENVIRONMENT", true, "unset: the Worker behaves as production");
  else if (DEV_ENVIRONMENTS.has(String(environment).toLowerCase()))
    add(
      "ENVIRONMENT",
      false,
      `"${environment}" is a development setting (it skips the webhook host DNS check and labels /openapi.json a ${environment} deployment); set ENVIRONMENT = "production" in [vars]`,
    );
  else add("ENVIRONMENT", true, `"${environment}"`);

  const localOnly = LOCAL_ONLY_VARS.filter((k) => k in vars);
  add(
    "local-only variables",
    localOnly.length === 0,
    localOnly.length
      ? `${localOnly.join(", ")} in [vars] is for the bench only; remove it`
      : `none of ${LOCAL_ONLY_VARS.join(", ")}`,
  );

  const converterUrl = vars.CONVERTER_URL;
  let converterLocal = false;
  if (converterUrl) {
    try {
      converterLocal = isLocalHost(new URL(String(converterUrl)).hostname);
    } catch {
      converterLocal = true;
    }
  }
  add(
    "CONVERTER_URL",
    !converterLocal,
    converterUrl
      ? converterLocal
        ? `"${converterUrl}" is a local address; leave it unset to use the PDF_CONVERTER container`
        : `"${converterUrl}"`
      : "unset: the PDF_CONVERTER container converts",
  );

  const origins = String(vars.WEBHOOK_ALLOWED_ORIGINS ?? "")
    .split(",")
    .map((s) => s.trim())
    .filter(Boolean);
  const localOrigins = origins.filter((o) => {
    try {
      const u = new URL(o);
      return u.protocol !== "https:" || isLocalHost(u.hostname);
    } catch {
      return true;
    }
  });
  add(
    "WEBHOOK_ALLOWED_ORIGINS",
    localOrigins.length === 0,
    localOrigins.length
      ? `${localOrigins.join(", ")}: a local or plain-http receiver exempt from the webhook address rules`
      : origins.length
        ? origins.join(", ")
        : "empty: no origin is exempt from the webhook address rules",
  );

  // CORS (src/http/cors.ts): exact origins only (never `*`), and in production https origins that are not local.
  const corsValue = vars.CORS_ALLOWED_ORIGINS;
  const corsProblem = corsOriginsProblem(corsValue);
  const { origins: corsOrigins } = parseCorsOrigins(corsValue);
  const corsLocal = corsOrigins.filter((o) => {
    const u = new URL(o);
    return u.protocol !== "https:" || isLocalHost(u.hostname);
  });
  add(
    "CORS_ALLOWED_ORIGINS",
    !corsProblem && corsLocal.length === 0,
    corsProblem
      ? corsProblem.replace(/^CORS_ALLOWED_ORIGINS: /, "")
      : corsLocal.length
        ? `${corsLocal.join(", ")}: a local or plain-http origin would let pages on that address call the production API`
        : corsOrigins.length
          ? corsOrigins.join(", ")
          : "empty: no browser origin may call the API cross-origin",
  );

  const plainSecrets = Object.keys(vars).filter(
    (k) => REQUIRED_SECRETS.includes(k) || /TOKEN|SECRET|PASSWORD|PRIVATE_KEY|API_KEY/i.test(k),
  );
  add(
    "no secret in [vars]",
    plainSecrets.length === 0,
    plainSecrets.length
      ? `${plainSecrets.join(", ")} would ship as a plain-text variable; use wrangler secret put`
      : `[vars] holds ${Object.keys(vars).join(", ") || "nothing"}`,
  );

  const dbs = config.d1_databases ?? [];
  const badDbs = dbs.filter((d) => d.database_id !== undefined && isPlaceholderId(String(d.database_id)));
  add(
    "D1 database ids",
    badDbs.length === 0,
    badDbs.length
      ? badDbs
          .map(
            (d) =>
              `${d.binding}: database_id "${d.database_id}" is a placeholder; put the id printed by \`wrangler d1 create ${d.database_name}\` or leave database_id out`,
          )
          .join("; ")
      : dbs
          .map(
            (d) =>
              `${d.binding}: ${d.database_id ? `database_id ${d.database_id}` : `no database_id, so wrangler deploy binds (or creates) "${d.database_name}"`}`,
          )
          .join("; ") || "no D1 database",
  );

  const declared = config.secrets?.required ?? [];
  const undeclared = REQUIRED_SECRETS.filter((s) => !declared.includes(s));
  add(
    "[secrets] required",
    undeclared.length === 0,
    undeclared.length
      ? `${undeclared.join(", ")} not declared, so wrangler deploy would ship a Worker without it; add it to [secrets] required`
      : `${declared.join(", ")}: wrangler deploy refuses while one is unset on the Worker`,
  );

  if (secrets) {
    const problems = [];
    for (const name of declared.length ? declared : REQUIRED_SECRETS) {
      const v = secrets[name];
      if (v === undefined || v === "") problems.push(`${name} missing`);
      else if (KNOWN_DEV_SECRETS.has(String(v)) || String(v).length < 16)
        problems.push(`${name} is a test value or shorter than 16 characters`);
    }
    add(
      `secrets in ${secretsFile}`,
      problems.length === 0,
      problems.length ? problems.join("; ") : "every required secret has a value",
    );
  } else {
    add(
      "secrets on the account",
      true,
      "not checked here (no --secrets-file); wrangler deploy checks them against [secrets] required",
    );
  }
  return checks;
}

export async function readWranglerConfig(configPath, env) {
  const { unstable_readConfig } = await import("wrangler");
  return unstable_readConfig({ config: configPath, env }, { hideWarnings: true });
}

function option(args, name) {
  const i = args.indexOf(name);
  return i >= 0 ? args[i + 1] : undefined;
}

async function main(args) {
  const configPath = path.resolve(option(args, "--config") ?? path.join(ROOT, "wrangler.toml"));
  const env = option(args, "--env");
  const secretsFile = option(args, "--secrets-file");
  if (!existsSync(configPath)) throw new Error(`${configPath} does not exist`);
  const config = await readWranglerConfig(configPath, env);
  const secrets = secretsFile ? parseSecretsFile(readFileSync(secretsFile, "utf8")) : undefined;
  const checks = checkConfig(config, { secrets, secretsFile });
  console.log(
    `Production checks of ${path.relative(process.cwd(), configPath) || configPath}${env ? ` (env ${env})` : ""}:`,
  );
  for (const c of checks) console.log(`  ${c.ok ? "✓" : "✗"} ${c.name}: ${c.detail}`);
  const failed = checks.filter((c) => !c.ok);
  if (failed.length) {
    console.error(
      `\n✗ deploy:check: ${failed.length} of ${checks.length} checks failed; a deploy would ship the configuration above.`,
    );
    return 1;
  }
  if (args.includes("--config-only")) {
    console.log(`\n✓ deploy:check: ${checks.length} configuration checks passed (bundle not built: --config-only).`);
    return 0;
  }
  return dryRun(configPath, env);
}

async function dryRun(configPath, env) {
  const { buildAssets } = await import("./build-assets.mjs");
  buildAssets(); // wrangler.toml's [assets] directory must exist
  const outdir = mkdtempSync(path.join(os.tmpdir(), "deploy-check-"));
  console.log("\nBundling as `wrangler deploy` would (--dry-run --containers-rollout=none):");
  const res = spawnSync(
    path.join(BIN, "wrangler"),
    [
      "deploy",
      "--dry-run",
      "--containers-rollout=none",
      "--outdir",
      outdir,
      "--config",
      configPath,
      ...(env ? ["--env", env] : []),
    ],
    {
      cwd: ROOT,
      stdio: "inherit",
      env: {
        ...process.env,
        CI: "1",
        WRANGLER_SEND_METRICS: "false",
        PATH: [BIN, process.env.PATH].join(path.delimiter),
      },
    },
  );
  try {
    if (res.status !== 0) {
      console.error(`\n✗ wrangler deploy --dry-run failed (exit ${res.status}); its output is above.`);
      return 1;
    }
    const files = readdirSync(outdir).filter((f) => /\.(m?js|wasm)$/.test(f));
    let raw = 0;
    let gz = 0;
    for (const f of files) {
      raw += statSync(path.join(outdir, f)).size;
      gz += gzipSync(readFileSync(path.join(outdir, f)), { level: 9 }).length;
    }
    const kib = (n) => `${(n / 1024).toFixed(0)} KiB`;
    console.log(
      `\n✓ deploy:check passed. Worker bundle: ${kib(raw)} (${kib(gz)} gzip) in ${files.length} file(s). ` +
        `Workers limits after compression: 3 MiB on the Free plan, 10 MiB on Paid.` +
        `\n  Not checked here: the container image (converter/Dockerfile), built by a real \`wrangler deploy\` with Docker.`,
    );
    return 0;
  } finally {
    rmSync(outdir, { recursive: true, force: true });
  }
}

if (import.meta.url === pathToFileURL(process.argv[1]).href) {
  const code = await main(process.argv.slice(2)).catch((err) => {
    console.error(`✗ deploy:check: ${err.message}`);
    return 1;
  });
  process.exit(code);
}
