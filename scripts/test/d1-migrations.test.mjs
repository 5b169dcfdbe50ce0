// The local migration runner (scripts/lib/d1.mjs, used by npm start and the benches) against wrangler's own
// `d1 migrations apply`: the same schema from the same files, recorded so that either continues after the other, on
// every D1 database of wrangler.toml, each kind from its own folder; and a database migrated before migrations were
// split per kind (docs/scaling.md "Migrations per kind of database"). node --test scripts/test/ (npm test's scripts stage).
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { after, describe, test } from "node:test";
import { BIN, ROOT } from "../lib/proc.mjs";
import { applyFiles, applyLocalMigrations, d1Bindings, LEGACY_MIGRATIONS_DIR, migrationFiles, MIGRATIONS_TABLE, migrationsDirOf, openLocalD1, splitMigration } from "../lib/d1.mjs";

const dirs = [];
const tempDir = () => {
  const dir = mkdtempSync(path.join(os.tmpdir(), "cws-d1-"));
  dirs.push(dir);
  return dir;
};
after(() => dirs.forEach((d) => rmSync(d, { recursive: true, force: true })));

async function schemaOf(persistTo, binding) {
  const proxy = await openLocalD1(persistTo);
  try {
    const db = proxy.env[binding];
    // d1_migrations itself differs in whitespace only; its rows are compared below.
    const objects = (await db.prepare("SELECT type, name, sql FROM sqlite_master WHERE name NOT LIKE 'sqlite_%' AND name NOT IN ('_cf_KV', 'd1_migrations') ORDER BY type, name").all()).results;
    const recorded = (await db.prepare("SELECT name FROM d1_migrations ORDER BY id").all()).results.map((r) => r.name);
    return { objects, recorded };
  } finally {
    await proxy.dispose();
  }
}

const directoryFiles = migrationFiles(path.join(ROOT, "migrations", "directory"));
const shardFiles = migrationFiles(path.join(ROOT, "migrations", "shard"));
const legacyFiles = migrationFiles(LEGACY_MIGRATIONS_DIR);

/** How far an earlier npm start may have migrated: the old set up to the fence (0012). */
const OLD_UP_TO = legacyFiles.indexOf("0012_shard_fence.sql") + 1;

/** What an earlier npm start left in `bindings`: the old set up to OLD_UP_TO, then whatever `then` writes. */
async function migrateAsBeforeTheSplit(persistTo, bindings, then = async () => {}) {
  const proxy = await openLocalD1(persistTo);
  try {
    for (const binding of bindings) {
      const db = proxy.env[binding];
      await db.prepare(MIGRATIONS_TABLE).run();
      await applyFiles(db, LEGACY_MIGRATIONS_DIR, new Set(), legacyFiles.slice(0, OLD_UP_TO));
      await then(db);
    }
  } finally {
    await proxy.dispose();
  }
}

function wranglerApply(binding, persistTo) {
  const res = spawnSync(path.join(BIN, "wrangler"), ["d1", "migrations", "apply", binding, "--local", "--persist-to", persistTo], {
    cwd: ROOT,
    encoding: "utf8",
    env: { ...process.env, CI: "1", WRANGLER_SEND_METRICS: "false" },
  });
  assert.equal(res.status, 0, res.stderr);
}

describe("local D1 migrations", () => {
  test("wrangler.toml binds the directory and four shard databases, each kind with its own migrations", () => {
    assert.deepEqual(d1Bindings(), ["DB", "SHARD_0", "SHARD_1", "SHARD_2", "SHARD_3"]);
    assert.equal(migrationsDirOf("DB"), path.join(ROOT, "migrations", "directory"));
    for (const b of ["SHARD_0", "SHARD_1", "SHARD_2", "SHARD_3"]) assert.equal(migrationsDirOf(b), path.join(ROOT, "migrations", "shard"), b);
  });

  test("the runner builds the schema wrangler builds for each kind, records the same files, and is a no-op the second time", async () => {
    const ours = tempDir();
    const theirs = tempDir();
    const applied = await applyLocalMigrations(ours);
    assert.deepEqual(applied.DB, directoryFiles);
    for (const binding of d1Bindings().slice(1)) assert.deepEqual(applied[binding], shardFiles, binding);
    for (const binding of ["DB", "SHARD_2"]) wranglerApply(binding, theirs);
    const directory = await schemaOf(ours, "DB");
    const shard = await schemaOf(ours, "SHARD_2");
    assert.ok(shard.objects.length > 150, `only ${shard.objects.length} shard schema objects`);
    assert.deepEqual(directory, await schemaOf(theirs, "DB"));
    assert.deepEqual(shard, await schemaOf(theirs, "SHARD_2"));
    // Each kind holds its own tables only: no organization data in the directory, no tokens in a shard.
    const tables = (s) => s.objects.filter((o) => o.type === "table").map((o) => o.name);
    assert.ok(tables(directory).includes("access_tokens") && !tables(directory).includes("organizations"), tables(directory).join());
    assert.ok(tables(shard).includes("organizations") && !tables(shard).includes("access_tokens"), tables(shard).join());
    // wrangler's state continues with the runner, and the runner's with itself, applying nothing twice.
    const again = await applyLocalMigrations(theirs, ["DB", "SHARD_2"]);
    assert.deepEqual(again, { DB: [], SHARD_2: [] });
    assert.deepEqual((await applyLocalMigrations(ours)).DB, []);
  });

  test("a database migrated before the split finishes the old set, keeps its rows, and its kind's baseline adds nothing", async () => {
    // What an earlier npm start left: every database took migrations/legacy, here only up to the fence (0012).
    const old = tempDir();
    await migrateAsBeforeTheSplit(old, ["DB", "SHARD_1"], (db) =>
      db.prepare("INSERT INTO users (id, email, name, created_at, updated_at) VALUES ('u1', 'old@example.com', 'Old', 1, 1)").run(),
    );
    const applied = await applyLocalMigrations(old, ["DB", "SHARD_1"]);
    assert.deepEqual(applied.DB, [...legacyFiles.slice(OLD_UP_TO), ...directoryFiles]);
    assert.deepEqual(applied.SHARD_1, [...legacyFiles.slice(OLD_UP_TO), ...shardFiles]);
    // A fresh database of each kind has exactly the objects the old one has under the same names: the baselines
    // are the old set's end state, so code written for either finds the same tables, indexes and triggers.
    const fresh = tempDir();
    await applyLocalMigrations(fresh, ["DB", "SHARD_1"]);
    for (const binding of ["DB", "SHARD_1"]) {
      const before = await schemaOf(old, binding);
      const made = await schemaOf(fresh, binding);
      const names = new Set(made.objects.map((o) => `${o.type} ${o.name}`));
      assert.deepEqual(before.objects.filter((o) => names.has(`${o.type} ${o.name}`)), made.objects, binding);
    }
    // The old shard database's directory tables, empty, are gone: it is now exactly what a new one is. The old
    // directory keeps its shard tables until the Worker's adoption has moved their rows (test/shared/shard-adopt.test.ts).
    assert.deepEqual((await schemaOf(old, "SHARD_1")).objects, (await schemaOf(fresh, "SHARD_1")).objects);
    assert.ok((await schemaOf(old, "DB")).objects.some((o) => o.name === "organizations"));
    const proxy2 = await openLocalD1(old);
    try {
      for (const binding of ["DB", "SHARD_1"]) assert.equal(await proxy2.env[binding].prepare("SELECT email FROM users WHERE id = 'u1'").first("email"), "old@example.com", binding);
    } finally {
      await proxy2.dispose();
    }
    assert.deepEqual(await applyLocalMigrations(old, ["DB", "SHARD_1"]), { DB: [], SHARD_1: [] });
  });

  test("db:migrate-legacy finishes the old set through wrangler where a database began it, and leaves a new one alone", async () => {
    const state = tempDir();
    await migrateAsBeforeTheSplit(state, ["DB"]);
    const res = spawnSync(process.execPath, [path.join(ROOT, "scripts", "db-migrate-legacy.mjs"), "--local", "--persist-to", state, "DB", "SHARD_3"], { cwd: ROOT, encoding: "utf8" });
    assert.equal(res.status, 0, `${res.stdout}${res.stderr}`);
    assert.match(res.stdout, /SHARD_3: never took migrations\/legacy; left alone/);
    const db = await schemaOf(state, "DB");
    assert.deepEqual(db.recorded, legacyFiles);
    assert.ok(db.objects.some((o) => o.type === "table" && o.name === "portal_routes"), "0014 applied");
    // The shard database never took the old set and still has nothing; its own migrations come next, as for any.
    assert.deepEqual(await applyLocalMigrations(state, ["DB", "SHARD_3"]), { DB: directoryFiles, SHARD_3: shardFiles });
  });

  test("statements split at breakpoints and line-final semicolons, never inside a trigger body", () => {
    const sql = [
      "-- a comment;",
      "CREATE TABLE `a` (x int);--> statement-breakpoint",
      "CREATE INDEX i ON a (x);",
      "CREATE TRIGGER t AFTER INSERT ON a BEGIN",
      "  INSERT INTO a VALUES (1);",
      "  DELETE FROM a WHERE x = 2;",
      "END;",
      "INSERT INTO a",
      "  VALUES (3);",
    ].join("\n");
    assert.deepEqual(splitMigration(sql), [
      "CREATE TABLE `a` (x int);",
      "CREATE INDEX i ON a (x);",
      "CREATE TRIGGER t AFTER INSERT ON a BEGIN\n  INSERT INTO a VALUES (1);\n  DELETE FROM a WHERE x = 2;\nEND;",
      "INSERT INTO a\n  VALUES (3);",
    ]);
  });
});
