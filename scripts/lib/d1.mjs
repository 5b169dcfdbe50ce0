// The local D1 databases of wrangler.toml and their migrations: the directory (DB) and every shard database
// (SHARD_0 … SHARD_n; docs/scaling.md). npm start, the benches and the script tests apply the migrations to all of
// them in one process through wrangler's getPlatformProxy (the same persisted files wrangler dev opens), in about
// a second. `wrangler d1 migrations apply` takes ~7 s a database here, and two of them at once fail on workerd's
// lock of the shared state ("database is locked"), so five databases would cost ~35 s of every start.
//
// Each kind of database has its own migrations (docs/scaling.md "Migrations per kind of database"): a binding's
// `migrations_dir` in wrangler.toml, migrations/directory for DB and migrations/shard for every SHARD_k. A local
// state that recorded migrations its kind does not have (one made before the databases were split per kind, with
// one set for all) is not migrated: the runner refuses it (UnusableStateError) and npm start says how to reset it.
//
// Applied migrations are recorded as wrangler records them (table d1_migrations, one row per file name), so a state
// migrated by either tool continues with the other; scripts/test/d1-migrations.test.mjs checks both give the same
// schema.
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { ROOT } from "./proc.mjs";

/** A local state the runner cannot bring up to date: `unknown` lists, per binding, the recorded migrations it lacks. */
export class UnusableStateError extends Error {
  constructor(unknown) {
    super(
      `the local databases recorded migrations this version does not have (${Object.entries(unknown)
        .map(([b, files]) => `${b}: ${files.slice(0, 3).join(", ")}${files.length > 3 ? ", …" : ""}`)
        .join("; ")})`,
    );
    this.name = "UnusableStateError";
    this.unknown = unknown;
  }
}
const WRANGLER_TOML = path.join(ROOT, "wrangler.toml");

/** wrangler.toml's [[<section>]] entries (d1_databases by default) as TOML text, in file order. */
export function d1Blocks(configPath = WRANGLER_TOML, section = "d1_databases") {
  const text = readFileSync(configPath, "utf8");
  return text
    .split(new RegExp(`^\\[\\[${section}\\]\\]\\s*$`, "m"))
    .slice(1)
    .map((block) => `[[${section}]]\n${block.split(/^\[/m)[0].trim()}\n`);
}

/** The binding names of wrangler.toml's [[d1_databases]] entries, in file order. */
export function d1Bindings(configPath = WRANGLER_TOML) {
  return d1Blocks(configPath).flatMap((block) => /^binding\s*=\s*"([^"]+)"/m.exec(block)?.[1] ?? []);
}

/** The migrations folder wrangler.toml names for a binding (absolute). */
export function migrationsDirOf(binding, configPath = WRANGLER_TOML) {
  const block = d1Blocks(configPath).find((b) => new RegExp(`^binding\\s*=\\s*"${binding}"`, "m").test(b));
  const dir = block && /^migrations_dir\s*=\s*"([^"]+)"/m.exec(block)?.[1];
  if (!dir) throw new Error(`${path.relative(ROOT, configPath)} names no migrations_dir for ${binding}`);
  return path.resolve(path.dirname(configPath), dir);
}

/** The .sql files of a migrations folder, in the order they apply. */
export function migrationFiles(dir) {
  return readdirSync(dir)
    .filter((f) => f.endsWith(".sql"))
    .sort();
}

/**
 * getPlatformProxy over a configuration holding only wrangler.toml's D1 databases (the same ids, so the same
 * persisted files wrangler dev opens): the full configuration would start a stand-in Worker whose missing Durable
 * Object classes workerd complains about on every start. `r2` adds the R2 buckets too (the benches' raw baselines
 * write objects), which need no Worker either.
 */
export async function openLocalD1(persistTo, configPath = WRANGLER_TOML, { r2 = false } = {}) {
  const { getPlatformProxy } = await import("wrangler");
  const dir = mkdtempSync(path.join(os.tmpdir(), "cws-d1-config-"));
  const config = path.join(dir, "wrangler.toml");
  const blocks = [...d1Blocks(configPath), ...(r2 ? d1Blocks(configPath, "r2_buckets") : [])];
  writeFileSync(
    config,
    [`name = "workspace-edge-migrations"`, `compatibility_date = "2026-11-01"`, "", ...blocks].join("\n"),
  );
  try {
    return await getPlatformProxy({ configPath: config, persist: { path: path.join(persistTo, "v3") } });
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/**
 * The statements of a migration file: drizzle-kit's `--> statement-breakpoint` markers and line-final semicolons
 * end a statement, except inside a CREATE TRIGGER body, which ends at its `END;`. Comment lines are dropped.
 */
export function splitMigration(text) {
  const statements = [];
  let current = [];
  let inTrigger = false;
  const flush = () => {
    const sql = current.join("\n").trim();
    if (sql) statements.push(sql);
    current = [];
    inTrigger = false;
  };
  for (const raw of text.split(/\r?\n/)) {
    const parts = raw.split("--> statement-breakpoint");
    for (let i = 0; i < parts.length; i++) {
      if (i > 0 && !inTrigger) flush();
      const line = parts[i];
      if (/^\s*--/.test(line) || !line.trim()) continue;
      if (current.length === 0 && /^\s*CREATE\s+(TEMP\s+|TEMPORARY\s+)?TRIGGER\b/i.test(line)) inTrigger = true;
      current.push(line);
      if (inTrigger ? /^\s*END\s*;\s*$/i.test(line) : /;\s*$/.test(line)) flush();
    }
  }
  flush();
  return statements;
}

/** wrangler's record of applied migrations (one row per file name). */
export const MIGRATIONS_TABLE = `CREATE TABLE IF NOT EXISTS d1_migrations(
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  name TEXT UNIQUE,
  applied_at TIMESTAMP DEFAULT CURRENT_TIMESTAMP NOT NULL
)`;

/**
 * Applies the files of `dir` (all of them, or `files`) that `done` does not hold, each file with its record in one
 * batch. Returns their names.
 */
export async function applyFiles(db, dir, done, files = migrationFiles(dir)) {
  const applied = [];
  for (const file of files) {
    if (done.has(file)) continue;
    const statements = splitMigration(readFileSync(path.join(dir, file), "utf8"));
    await db.batch([
      ...statements.map((s) => db.prepare(s)),
      db.prepare("INSERT INTO d1_migrations (name) VALUES (?)").bind(file),
    ]);
    done.add(file);
    applied.push(file);
  }
  return applied;
}

/** The names `db` recorded as applied (creating the record table when it has none). */
async function recorded(db) {
  await db.prepare(MIGRATIONS_TABLE).run();
  return new Set((await db.prepare("SELECT name FROM d1_migrations").all()).results.map((r) => r.name));
}

/**
 * Applies the migrations to every local D1 database under `persistTo` (wrangler's --persist-to), each from its
 * binding's migrations_dir. Resolves with { binding: [files applied] }; rejects, naming the database and file,
 * when a migration fails.
 */
export async function applyLocalMigrations(persistTo, bindings = d1Bindings()) {
  const proxy = await openLocalD1(persistTo);
  try {
    // Nothing is applied anywhere unless every database can be brought up to date from its own kind's files.
    const done = {};
    const unknown = {};
    for (const binding of bindings) {
      done[binding] = await recorded(proxy.env[binding]);
      const known = new Set(migrationFiles(migrationsDirOf(binding)));
      const strange = [...done[binding]].filter((name) => !known.has(name)).sort();
      if (strange.length) unknown[binding] = strange;
    }
    if (Object.keys(unknown).length) throw new UnusableStateError(unknown);
    const out = {};
    for (const binding of bindings) {
      try {
        out[binding] = await applyFiles(proxy.env[binding], migrationsDirOf(binding), done[binding]);
      } catch (err) {
        throw new Error(`${binding}: ${err instanceof Error ? err.message : String(err)}`);
      }
    }
    return out;
  } finally {
    await proxy.dispose();
  }
}

// `node scripts/lib/d1.mjs <persistTo>`: for synchronous callers (the benches' fresh state).
if (process.argv[1] && path.resolve(process.argv[1]) === path.join(ROOT, "scripts", "lib", "d1.mjs")) {
  await applyLocalMigrations(process.argv[2]);
}
