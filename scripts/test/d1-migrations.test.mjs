// The local migration runner (scripts/lib/d1.mjs, used by npm start and the benches) against wrangler's own
// `d1 migrations apply`: the same schema from the same files, recorded so that either continues after the other, on
// every D1 database of wrangler.toml. node --test scripts/test/ (npm test's scripts stage).
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { mkdtempSync, readdirSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { after, describe, test } from "node:test";
import { BIN, ROOT } from "../lib/proc.mjs";
import { applyLocalMigrations, d1Bindings, openLocalD1, splitMigration } from "../lib/d1.mjs";

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

const files = readdirSync(path.join(ROOT, "migrations")).filter((f) => f.endsWith(".sql")).sort();

describe("local D1 migrations", () => {
  test("wrangler.toml binds the directory and four shard databases", () => {
    assert.deepEqual(d1Bindings(), ["DB", "SHARD_0", "SHARD_1", "SHARD_2", "SHARD_3"]);
  });

  test("the runner builds the schema wrangler builds, records the same files, and is a no-op the second time", async () => {
    const ours = tempDir();
    const theirs = tempDir();
    const applied = await applyLocalMigrations(ours);
    for (const binding of d1Bindings()) assert.deepEqual(applied[binding], files, binding);
    const res = spawnSync(path.join(BIN, "wrangler"), ["d1", "migrations", "apply", "SHARD_2", "--local", "--persist-to", theirs], {
      cwd: ROOT,
      encoding: "utf8",
      env: { ...process.env, CI: "1", WRANGLER_SEND_METRICS: "false" },
    });
    assert.equal(res.status, 0, res.stderr);
    const a = await schemaOf(ours, "SHARD_2");
    const b = await schemaOf(theirs, "SHARD_2");
    assert.ok(a.objects.length > 50, `only ${a.objects.length} schema objects`);
    assert.deepEqual(a.objects, b.objects);
    assert.deepEqual(a.recorded, b.recorded);
    // wrangler's state continues with the runner, and the runner's with itself, applying nothing twice.
    const again = await applyLocalMigrations(theirs, ["SHARD_2"]);
    assert.deepEqual(again.SHARD_2, []);
    assert.deepEqual((await applyLocalMigrations(ours)).DB, []);
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
