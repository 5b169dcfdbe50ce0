/// <reference types="vite/client" />
// Which tables go to the directory database and which to the shard databases (docs/scaling.md "Directory and shards"):
// src/db/schema/directory.ts and shard.ts, the inputs of drizzle.directory.config.ts and drizzle.shard.config.ts.
import { getTableConfig, SQLiteTable } from "drizzle-orm/sqlite-core";
import { is } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import * as everything from "../../src/db/schema";
import * as directory from "../../src/db/schema/directory";
import * as shard from "../../src/db/schema/shard";
import * as copies from "../../src/db/schema/copies";

const docs = import.meta.glob("../../docs/scaling.md", { query: "?raw", import: "default", eager: true }) as Record<
  string,
  string
>;
const scaling = Object.values(docs)[0]!;

const tablesOf = (mod: Record<string, unknown>) =>
  Object.values(mod).filter((v): v is SQLiteTable => is(v, SQLiteTable));
const names = (mod: Record<string, unknown>) =>
  tablesOf(mod)
    .map((t) => getTableConfig(t).name)
    .sort();

/** Foreign keys from a table of `from` to a table outside it: "table.column → other". */
function crossReferences(from: Record<string, unknown>): string[] {
  const inside = new Set(names(from));
  return tablesOf(from)
    .flatMap((t) => {
      const config = getTableConfig(t);
      return config.foreignKeys.map((fk) => {
        const ref = fk.reference();
        const target = getTableConfig(ref.foreignTable).name;
        return inside.has(target) ? null : `${config.name}.${ref.columns.map((c) => c.name).join(",")} → ${target}`;
      });
    })
    .filter((x): x is string => x !== null)
    .sort();
}

describe("directory and shard schemas", () => {
  it("every table of the live schema is in exactly one of the two", () => {
    const d = names(directory);
    const s = names(shard);
    expect(d.filter((n) => s.includes(n))).toEqual([]);
    expect([...d, ...s].sort()).toEqual(names(everything));
    expect(d.length).toBeGreaterThanOrEqual(4);
    expect(s.length).toBeGreaterThan(20);
  });

  it("docs/scaling.md lists each table on its side", () => {
    const row = scaling.split("\n").find((l) => l.trim().startsWith("| users, access_tokens"));
    expect(row, "the table of step 1").toBeDefined();
    const [, left, right] = row!.split("|");
    for (const n of names(directory)) expect(left, n).toMatch(new RegExp(`\\b${n}\\b`));
    for (const n of names(shard)) expect(right, n).toMatch(new RegExp(`\\b${n}\\b`));
  });

  // Foreign keys cannot cross databases: a shard's only references outside it are to users, whose copies every shard
  // keeps (docs/scaling.md "Directory and shards"). A new reference across the two kinds fails here.
  it("the foreign keys that cross the split are the known ones", () => {
    const fromShard = crossReferences(shard);
    const fromDirectory = crossReferences(directory);
    expect(fromDirectory).toEqual([]);
    // Only users: every shard keeps a copy of every user, so these hold inside each shard database too.
    expect(
      fromShard.every((r) => /→ users$/.test(r)),
      fromShard.join("\n"),
    ).toBe(true);
    expect(fromShard.length).toBe(Number(/the (\d+) references from shard tables to `users.id`/.exec(scaling)?.[1]));
  });

  // drizzle.shard.config.ts generates the shard migrations from shard.ts and copies.ts: with the copies, every table a
  // shard table references is created in the shard database too; and the copies are directory tables.
  it("the shard schema with its copies of directory tables is closed under foreign keys", () => {
    expect(crossReferences({ ...shard, ...copies })).toEqual([]);
    expect(names(copies)).toEqual(["idempotency_keys", "users"]);
    for (const n of names(copies)) expect(names(directory), n).toContain(n);
  });
});
