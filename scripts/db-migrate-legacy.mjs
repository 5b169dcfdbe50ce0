// npm run db:migrate-legacy -- (--remote | --local [--persist-to DIR]) [BINDING …]
//
// For D1 databases migrated before migrations were split per kind (docs/scaling.md "Migrations per kind of
// database"): every database then took one set, now migrations/legacy. This applies the rest of that set, through
// `wrangler d1 migrations apply` with migrations/legacy as the folder, to each binding (all of wrangler.toml's by
// default) that recorded a file of it, and leaves alone a database that never did (a database made after the split
// must not take the old set). Afterwards `wrangler d1 migrations apply <binding>` applies the kind's own files, whose
// baseline finds everything there. npm start needs none of this: its runner (scripts/lib/d1.mjs) does the same locally.
import { spawnSync } from "node:child_process";
import { readFileSync, rmSync, writeFileSync } from "node:fs";
import path from "node:path";
import { BIN, ROOT } from "./lib/proc.mjs";
import { d1Bindings, LEGACY_MIGRATIONS_DIR, migrationFiles } from "./lib/d1.mjs";

const args = process.argv.slice(2);
const usage = "usage: npm run db:migrate-legacy -- (--remote | --local [--persist-to DIR]) [BINDING …]";
const mode = args.includes("--remote") ? ["--remote"] : args.includes("--local") ? ["--local"] : null;
const persistAt = args.indexOf("--persist-to");
const persistTo = persistAt >= 0 ? args[persistAt + 1] : undefined;
if (!mode || (persistAt >= 0 && !persistTo) || (persistTo && mode[0] === "--remote")) {
  console.error(usage);
  process.exit(2);
}
const named = args.filter((a, i) => !a.startsWith("--") && i !== persistAt + 1);
const known = d1Bindings();
const unknown = named.filter((b) => !known.includes(b));
if (unknown.length) {
  console.error(`No D1 binding ${unknown.join(", ")} in wrangler.toml (it has ${known.join(", ")})`);
  process.exit(2);
}
const where = [...mode, ...(persistTo ? ["--persist-to", persistTo] : [])];
const env = { ...process.env, CI: "1", WRANGLER_SEND_METRICS: "false" };

function wrangler(argv) {
  return spawnSync(path.join(BIN, "wrangler"), argv, { cwd: ROOT, encoding: "utf8", env });
}

/** The file names a database recorded as applied ([] when it has no d1_migrations table yet). */
function recorded(binding) {
  const res = wrangler(["d1", "execute", binding, ...where, "--json", "--command", "SELECT name FROM d1_migrations"]);
  const out = `${res.stdout}${res.stderr}`;
  if (res.status !== 0) {
    if (/no such table: d1_migrations/.test(out)) return [];
    throw new Error(`wrangler d1 execute ${binding} failed:\n${out}`);
  }
  return JSON.parse(res.stdout).flatMap((r) => r.results ?? []).map((r) => r.name);
}

// wrangler.toml with every migrations_dir pointing at the old set, beside it so its other relative paths still resolve.
const config = path.join(ROOT, `.wrangler-legacy-${process.pid}.toml`);
writeFileSync(config, readFileSync(path.join(ROOT, "wrangler.toml"), "utf8").replace(/^migrations_dir\s*=.*$/gm, `migrations_dir = ${JSON.stringify(LEGACY_MIGRATIONS_DIR)}`));
try {
  const legacy = new Set(migrationFiles(LEGACY_MIGRATIONS_DIR));
  for (const binding of named.length ? named : known) {
    const done = recorded(binding);
    if (!done.some((name) => legacy.has(name))) {
      console.log(`• ${binding}: never took migrations/legacy; left alone`);
      continue;
    }
    const missing = [...legacy].filter((name) => !done.includes(name));
    if (!missing.length) {
      console.log(`• ${binding}: migrations/legacy complete`);
      continue;
    }
    console.log(`• ${binding}: applying ${missing.join(", ")}`);
    const res = wrangler(["d1", "migrations", "apply", binding, ...where, "--config", config]);
    if (res.status !== 0) throw new Error(`wrangler d1 migrations apply ${binding} failed:\n${res.stdout}${res.stderr}`);
  }
} catch (err) {
  console.error(err instanceof Error ? err.message : String(err));
  process.exitCode = 1;
} finally {
  rmSync(config, { force: true });
}
