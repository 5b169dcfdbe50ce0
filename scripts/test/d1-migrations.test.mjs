// The local migration runner (scripts/lib/d1.mjs, used by npm start and the benches) against wrangler's own
// `d1 migrations apply`: the same schema from the same files, recorded so that either continues after the other, on
// every D1 database of wrangler.toml, each kind from its own folder; and a state recorded by an earlier version
// (before migrations were split per kind), which npm start refuses with how to reset it. node --test scripts/test/.
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, readdirSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { after, describe, test } from "node:test";
import { BIN, ROOT } from "../lib/proc.mjs";
import {
  applyLocalMigrations,
  d1Bindings,
  migrationFiles,
  MIGRATIONS_TABLE,
  migrationsDirOf,
  openLocalD1,
  splitMigration,
  UnusableStateError,
} from "../lib/d1.mjs";
import { applyMigrations } from "../lib/service.mjs";

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
    const objects = (
      await db
        .prepare(
          "SELECT type, name, sql FROM sqlite_master WHERE name NOT LIKE 'sqlite_%' AND name NOT IN ('_cf_KV', 'd1_migrations') ORDER BY type, name",
        )
        .all()
    ).results;
    const recorded = (await db.prepare("SELECT name FROM d1_migrations ORDER BY id").all()).results.map((r) => r.name);
    return { objects, recorded };
  } finally {
    await proxy.dispose();
  }
}

const directoryFiles = migrationFiles(path.join(ROOT, "migrations", "directory"));
const shardFiles = migrationFiles(path.join(ROOT, "migrations", "shard"));
/** What an earlier version's npm start left: every database recorded the migrations of one set for all. */
async function migrateAsBeforeTheSplit(persistTo, bindings) {
  const proxy = await openLocalD1(persistTo);
  try {
    for (const binding of bindings) {
      const db = proxy.env[binding];
      await db.prepare(MIGRATIONS_TABLE).run();
      await db
        .prepare("INSERT INTO d1_migrations (name) VALUES ('0000_initial.sql'), ('0001_tables_content.sql')")
        .run();
      await db.prepare("CREATE TABLE users (id text PRIMARY KEY, email text)").run();
      await db.prepare("INSERT INTO users VALUES ('u1', 'old@example.com')").run();
    }
  } finally {
    await proxy.dispose();
  }
}

function wranglerApply(binding, persistTo) {
  const res = spawnSync(
    path.join(BIN, "wrangler"),
    ["d1", "migrations", "apply", binding, "--local", "--persist-to", persistTo],
    {
      cwd: ROOT,
      encoding: "utf8",
      env: { ...process.env, CI: "1", WRANGLER_SEND_METRICS: "false" },
    },
  );
  assert.equal(res.status, 0, res.stderr);
}

describe("local D1 migrations", () => {
  test("wrangler.toml binds the directory and four shard databases, each kind with its own migrations", () => {
    assert.deepEqual(d1Bindings(), ["DB", "SHARD_0", "SHARD_1", "SHARD_2", "SHARD_3"]);
    assert.equal(migrationsDirOf("DB"), path.join(ROOT, "migrations", "directory"));
    for (const b of ["SHARD_0", "SHARD_1", "SHARD_2", "SHARD_3"])
      assert.equal(migrationsDirOf(b), path.join(ROOT, "migrations", "shard"), b);
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
    assert.ok(
      tables(directory).includes("access_tokens") && !tables(directory).includes("organizations"),
      tables(directory).join(),
    );
    assert.ok(
      tables(shard).includes("organizations") && !tables(shard).includes("access_tokens"),
      tables(shard).join(),
    );
    // wrangler's state continues with the runner, and the runner's with itself, applying nothing twice.
    const again = await applyLocalMigrations(theirs, ["DB", "SHARD_2"]);
    assert.deepEqual(again, { DB: [], SHARD_2: [] });
    assert.deepEqual((await applyLocalMigrations(ours)).DB, []);
  });

  test("a state an earlier version made is refused with how to reset it, left as it was, and a copy kept", async () => {
    const parent = tempDir();
    const state = path.join(parent, "state");
    await migrateAsBeforeTheSplit(state, ["DB", "SHARD_1"]);
    await assert.rejects(
      applyLocalMigrations(state, ["DB", "SHARD_1"]),
      (err) => err instanceof UnusableStateError && /0000_initial\.sql/.test(err.message),
    );
    const logged = [];
    await assert.rejects(applyMigrations({ persistTo: state }, { log: (l) => logged.push(l) }), (err) => {
      assert.equal(err.name, "StartError");
      assert.match(err.message, /made by an earlier version and cannot be used/);
      assert.match(err.hint, /rm -rf .*state && npm start/);
      return true;
    });
    // Nothing applied: the old record and rows are as they were, in the state and in its copy.
    const copies = readdirSync(parent).filter((f) => f.startsWith("state.unusable-"));
    assert.equal(copies.length, 1, readdirSync(parent).join());
    for (const dir of [state, path.join(parent, copies[0])]) {
      assert.ok(existsSync(dir));
      const { recorded, objects } = await schemaOf(dir, "DB");
      assert.deepEqual(recorded, ["0000_initial.sql", "0001_tables_content.sql"]);
      assert.deepEqual(
        objects.map((o) => o.name),
        ["users"],
      );
    }
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
