// The steps of npm start, one function each, so start.mjs reads as a list and other scripts (the README tour
// test) start the service exactly the same way. Every child goes through the supervisor, so one stopAll()
// takes everything down.
import { cpSync, existsSync } from "node:fs";
import path from "node:path";
import { spawnSync } from "node:child_process";
import { BIN, ROOT } from "./proc.mjs";
import { readDevVars, SECRET_NAMES, secret, varArgs, writeDevVars } from "./devvars.mjs";
import { ensureLibreOffice } from "./libreoffice.mjs";
import { StartError } from "./errors.mjs";
import { applyLocalMigrations, d1Bindings, UnusableStateError } from "./d1.mjs";
import { corsOriginsProblem, parseCorsOrigins } from "./cors-origins.mjs";
import { assertPortFree, freePort, parsePort } from "./ports.mjs";
import { isConverterHealth, isWorkspaceHealth, waitForHealth } from "./health.mjs";
import { seedDemo } from "../seed.mjs";
import { buildAssets } from "../build-assets.mjs";

// wrangler runs on the Node pinned in devDependencies (node_modules/.bin first on PATH), quietly and offline.
const QUIET_WRANGLER = {
  CI: "1",
  WRANGLER_SEND_METRICS: "false",
  CLOUDFLARE_CF_FETCH_ENABLED: "false",
  PATH: [BIN, process.env.PATH].filter(Boolean).join(path.delimiter),
};

/** The pinned Node 22 (runs converter/src/main.ts directly), whatever `node` started this script. */
const NODE = existsSync(path.join(BIN, "node")) ? path.join(BIN, "node") : process.execPath;

/**
 * Settings from the environment:
 *   PORT (8787), HOST (127.0.0.1), CONVERTER_PORT (any free port), WEBHOOK_INBOX_PORT (any free port),
 *   PERSIST_TO (.wrangler/state: the local D1,
 *   R2 and Durable Object data), ENV_FILE (.dev/env.sh: the export lines for the README tour), DEV_VARS (.dev.vars:
 *   the local secrets; the test scripts that run npm start point it into their own folder).
 */
export function readSettings(env = process.env) {
  const persistTo = path.resolve(ROOT, env.PERSIST_TO || path.join(".wrangler", "state"));
  return {
    port: parsePort(env.PORT, 8787, "PORT"),
    host: env.HOST || "127.0.0.1",
    converterPort: parsePort(env.CONVERTER_PORT, undefined, "CONVERTER_PORT"),
    inboxPort: parsePort(env.WEBHOOK_INBOX_PORT, 0, "WEBHOOK_INBOX_PORT"),
    persistTo,
    envFile: path.resolve(ROOT, env.ENV_FILE || path.join(".dev", "env.sh")),
    devVarsFile: path.resolve(ROOT, env.DEV_VARS || ".dev.vars"),
    stateFile: path.join(persistTo, "demo.json"),
    corsAllowedOrigins: readCorsOrigins(env.CORS_ALLOWED_ORIGINS),
  };
}

/** Browser-app origins allowed by CORS (src/http/cors.ts), from the environment; `*` or a malformed entry stops npm start. */
function readCorsOrigins(value) {
  const problem = corsOriginsProblem(value);
  if (problem)
    throw new StartError(problem, {
      hint: "e.g. CORS_ALLOWED_ORIGINS=http://localhost:5173,https://app.example.com npm start",
    });
  return parseCorsOrigins(value).origins.join(",");
}

/** Ports first: nothing is started when one is taken. */
export async function checkPorts(settings) {
  await assertPortFree(settings.port, { host: settings.host, what: "the API", envName: "PORT" });
  if (settings.converterPort !== undefined) {
    await assertPortFree(settings.converterPort, {
      host: "127.0.0.1",
      what: "the PDF converter",
      envName: "CONVERTER_PORT",
    });
  }
}

/**
 * ADMIN_TOKEN: the environment, else .dev.vars, else generated once into .dev.vars (with the other local
 * secrets). `adminSource` says where it is kept, which npm start prints on every run.
 */
export function loadSecrets(settings, env = process.env) {
  const fileVars = readDevVars(settings.devVarsFile);
  const fill = { ...fileVars };
  let generated = false;
  if (!fill.ADMIN_TOKEN) {
    fill.ADMIN_TOKEN = secret("adm_");
    generated = true;
  }
  fill.SIGNING_SECRET ||= secret("sig_");
  fill.CONVERTER_SECRET ||= secret("cnv_");
  // wrangler.toml ships production; `npm run dev` (plain wrangler dev) reads this file and runs as development.
  fill.ENVIRONMENT ||= "development";
  // Locally no edge overwrites CF-Connecting-IP, so a client could invent it: per-address limits ignore it.
  fill.TRUST_CF_CONNECTING_IP ||= "false";
  if (JSON.stringify(fill) !== JSON.stringify(fileVars)) writeDevVars(settings.devVarsFile, fill);
  const adminToken = env.ADMIN_TOKEN || fill.ADMIN_TOKEN;
  const adminSource = env.ADMIN_TOKEN
    ? "your environment (ADMIN_TOKEN)"
    : generated
      ? ".dev.vars (generated now)"
      : ".dev.vars";
  return { vars: { ...fill, ADMIN_TOKEN: adminToken }, adminToken, adminSource };
}

/**
 * Portal domain settings of the local service (docs/api-guide.md, "Published portals"): SERVICE_HOSTNAMES is the
 * names it listens on (no portal may claim them), unless the environment sets it; DOMAIN_VERIFICATION is passed on
 * from the environment (`off` verifies portal domains at once, for local use and acceptance runs).
 */
export function portalDomainVars(settings, env = process.env) {
  const names = new Set(["127.0.0.1", "localhost"]);
  if (settings.host && settings.host !== "0.0.0.0" && settings.host !== "::") names.add(settings.host);
  return {
    SERVICE_HOSTNAMES: env.SERVICE_HOSTNAMES || [...names].join(","),
    ...(env.DOMAIN_VERIFICATION && { DOMAIN_VERIFICATION: env.DOMAIN_VERIFICATION }),
  };
}

export async function applyMigrations(settings, { log = console.log } = {}) {
  const bindings = d1Bindings();
  log(`• Applying D1 migrations to the local databases (${bindings.join(", ")})`);
  try {
    await applyLocalMigrations(settings.persistTo, bindings);
  } catch (err) {
    if (err instanceof UnusableStateError) throw unusableState(settings, err);
    throw new StartError(
      `Applying the D1 migrations to the local databases failed: ${err instanceof Error ? err.message : String(err)}`,
    );
  }
}

/**
 * A local state this version cannot bring up to date (one made before the databases were split per kind): it is
 * left as it is, a copy is kept beside it, and the error says how to start afresh.
 */
function unusableState(settings, err) {
  const copy = `${settings.persistTo}.unusable-${new Date().toISOString().replace(/[:.]/g, "-")}`;
  cpSync(settings.persistTo, copy, { recursive: true });
  const rel = (p) => path.relative(process.cwd(), p) || ".";
  return new StartError(
    `This local state (${rel(settings.persistTo)}) was made by an earlier version and cannot be used: ${err.message}. Nothing was changed; a copy is kept at ${rel(copy)}.`,
    {
      hint: `Start afresh (a new demo is seeded): rm -rf ${rel(settings.persistTo)} && npm start`,
    },
  );
}

/**
 * The PDF converter as a local process. Returns its URL, or null when it cannot run here (E6 then answers
 * 503; everything else works), after saying why.
 */
export async function startConverter(sup, settings, secrets, opts = {}) {
  const converter = await launchConverter(sup, settings, secrets, opts);
  return converter ? converter.ready : null;
}

/**
 * Starts the converter without waiting for it: { url, ready } where `ready` resolves with the URL once it
 * answers (or null, after saying why, when it did not start), so wrangler dev can start meanwhile. null when
 * LibreOffice cannot run here.
 */
export async function launchConverter(sup, settings, secrets, { log = console.log, warn = console.warn } = {}) {
  const officeProblem = ensureLibreOffice({ log });
  if (officeProblem) {
    warn(`! PDF export (E6) will answer 503: ${officeProblem}`);
    return null;
  }
  const port = settings.converterPort ?? (await freePort());
  const { child } = sup.spawn("the PDF converter", NODE, [path.join(ROOT, "converter", "src", "main.ts")], {
    env: { PORT: String(port), HOST: "127.0.0.1", CONVERTER_SECRET: secrets.vars.CONVERTER_SECRET },
  });
  const url = `http://127.0.0.1:${port}`;
  const ready = waitForHealth(`${url}/health`, {
    name: "the PDF converter",
    child,
    isOurs: isConverterHealth,
    timeoutMs: 90_000,
    hint: "Pick another converter port: CONVERTER_PORT=<free port> npm start",
  }).then(
    () => {
      log(`• PDF converter ready on ${url}`);
      return url;
    },
    (err) => {
      if (settings.converterPort !== undefined) throw err; // the user chose the port: say so and stop
      warn(`! The PDF converter did not start; E6 will answer 503. ${err.message}`);
      return null;
    },
  );
  return { url, ready };
}

/**
 * Arguments of `wrangler dev`; `extraArgs` for features that need more (e.g. --test-scheduled). The local
 * service runs as development (wrangler.toml's [vars] say production); the secrets go through a 0600 file in
 * the state directory, not the command line.
 */
export function wranglerDevArgs(settings, vars, extraArgs = []) {
  const args = varArgs(
    { ...vars, ENVIRONMENT: "development", TRUST_CF_CONNECTING_IP: "false" },
    path.join(settings.persistTo, "wrangler-dev.vars"),
  );
  return [
    "dev",
    "--port",
    String(settings.port),
    "--ip",
    settings.host,
    "--persist-to",
    settings.persistTo,
    "--show-interactive-dev-session=false",
    ...extraArgs,
    ...args,
  ];
}

/** wrangler dev (and its workerd); resolves with the base URL once OUR /health answers. */
export async function startWorker(sup, settings, vars, { extraArgs = [] } = {}) {
  // wrangler.toml's [assets] (the /docs bundle) must be in place before wrangler dev reads it.
  buildAssets();
  // wrangler also reads the declared vars and secrets from its own environment (over --var and --env-file): the
  // caller's ENVIRONMENT must not turn the local service into a production one, and the secrets come only from
  // the file (an undefined value leaves the variable out of the child's environment).
  const env = {
    ...QUIET_WRANGLER,
    ENVIRONMENT: "development",
    ...Object.fromEntries(SECRET_NAMES.map((k) => [k, undefined])),
  };
  const entry = sup.spawn(
    "wrangler dev",
    path.join(BIN, "wrangler"),
    wranglerDevArgs(settings, { ...portalDomainVars(settings), ...vars }, extraArgs),
    { env },
  );
  const base = `http://${settings.host === "0.0.0.0" ? "127.0.0.1" : settings.host}:${settings.port}`;
  await waitForHealth(`${base}/health`, {
    name: "wrangler dev",
    child: entry.child,
    isOurs: isWorkspaceHealth,
    timeoutMs: 120_000,
    hint: `Pick another port: PORT=${settings.port + 1} npm start`,
  });
  return { base, child: entry.child };
}

export async function seed(base, secrets, settings) {
  return seedDemo(base, secrets.adminToken, { stateFile: settings.stateFile });
}
