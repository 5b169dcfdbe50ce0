// Logical shards and the ids that carry them (docs/scaling.md "Logical shards", "Placement", "Id format").
import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import {
  bindingOf,
  cryptoRandom,
  DEFAULT_LOGICAL_SHARD,
  isLogicalShard,
  LOGICAL_SHARDS,
  logicalShardsOn,
  physicalIndexOf,
  placeOrganization,
  SHARD_MAP,
  shardBindings,
  shardMapProblems,
  type ShardMap,
} from "../../src/tenancy/kernel/map";
import { logicalShardOfId, newOrganizationScopedId } from "../../src/tenancy/kernel/ids";
import { ID_PATTERN, newId, newShardedId, SHARD_NUMBERS, shardNumberOfId } from "../../src/lib/ids";
import { call, registerUser } from "../support/harness";

const map = (physical: number, extra: Partial<ShardMap> = {}): ShardMap => ({
  physical,
  moved: {},
  closed: [],
  ...extra,
});

describe("logical shards", () => {
  it("480 logical shards divide evenly over every physical count the plan names", () => {
    expect(LOGICAL_SHARDS).toBe(480);
    for (const p of [1, 2, 3, 4, 5, 6, 8, 10, 12, 16, 24, 32, 48, 96, 160, 240, 480]) {
      expect(shardMapProblems(map(p))).toEqual([]);
      const counts = Array.from({ length: p }, (_, k) => logicalShardsOn(k, map(p)).length);
      expect(new Set(counts)).toEqual(new Set([LOGICAL_SHARDS / p]));
    }
    expect(shardMapProblems(map(7))).toEqual(["physical (7) must divide 480"]);
    expect(shardMapProblems(map(0))[0]).toMatch(/physical must be/);
  });

  it("the default map gives each database a contiguous range, and growing by a factor splits ranges without crossing them", () => {
    expect(physicalIndexOf(0, map(32))).toBe(0);
    expect(physicalIndexOf(14, map(32))).toBe(0);
    expect(physicalIndexOf(15, map(32))).toBe(1);
    expect(physicalIndexOf(479, map(32))).toBe(31);
    // 32 → 96: every new database's shards came from one old database.
    for (let k = 0; k < 96; k++) {
      const from = new Set(logicalShardsOn(k, map(96)).map((l) => physicalIndexOf(l, map(32))));
      expect(from.size).toBe(1);
    }
  });

  it("a move overrides the default for one logical shard only, and the map names its bindings", () => {
    const moved = map(4, { moved: { 7: 3 } });
    expect(bindingOf(7, map(4))).toBe("SHARD_0");
    expect(bindingOf(7, moved)).toBe("SHARD_3");
    expect(bindingOf(8, moved)).toBe("SHARD_0");
    expect(logicalShardsOn(3, moved)).toContain(7);
    expect(logicalShardsOn(0, moved)).not.toContain(7);
    expect(shardBindings(map(4))).toEqual(["SHARD_0", "SHARD_1", "SHARD_2", "SHARD_3"]);
    expect(shardMapProblems(map(4, { moved: { 7: 4 } }))).toEqual(["moved: 7 → 4 is not a database of the map"]);
    expect(shardMapProblems(map(4, { moved: { 480: 1 } }))).toEqual(["moved: 480 is not a logical shard"]);
    expect(() => physicalIndexOf(480, map(4))).toThrow(RangeError);
    expect(() => physicalIndexOf(-1, map(4))).toThrow(RangeError);
  });

  it("the Worker's map is usable: four local databases, every logical shard placed", () => {
    expect(shardMapProblems(SHARD_MAP)).toEqual([]);
    expect(SHARD_MAP.physical).toBe(4);
    expect(new Set(Array.from({ length: LOGICAL_SHARDS }, (_, l) => bindingOf(l)))).toEqual(new Set(shardBindings()));
    expect(isLogicalShard(DEFAULT_LOGICAL_SHARD)).toBe(true);
  });

  it("placement is uniform over the open logical shards and never picks a closed one", () => {
    const closed = [0, 1, 2, 100, 479];
    const m = map(4, { closed });
    const counts = new Array<number>(LOGICAL_SHARDS).fill(0);
    // An even sweep of [0, 1): each open shard is drawn exactly as often as the others.
    const draws = (LOGICAL_SHARDS - closed.length) * 10;
    for (let i = 0; i < draws; i++) counts[placeOrganization(() => (i + 0.5) / draws, m)]!++;
    for (let l = 0; l < LOGICAL_SHARDS; l++) expect(counts[l]).toBe(closed.includes(l) ? 0 : 10);
    // The extremes of [0, 1) land on the first and last open shards.
    expect(placeOrganization(() => 0, m)).toBe(3);
    expect(placeOrganization(() => 0.9999999999, m)).toBe(478);
    const all = map(4, { closed: Array.from({ length: LOGICAL_SHARDS }, (_, l) => l) });
    expect(shardMapProblems(all)).toContain("closed: no logical shard is left open for new organizations");
    expect(() => placeOrganization(() => 0.5, all)).toThrow();
  });

  it("placement with the platform's random source stays in range and spreads", () => {
    const seen = new Set<number>();
    for (let i = 0; i < 2000; i++) {
      const r = cryptoRandom();
      expect(r).toBeGreaterThanOrEqual(0);
      expect(r).toBeLessThan(1);
      seen.add(placeOrganization(cryptoRandom));
    }
    // 2,000 uniform draws over 480 shards miss a given shard with probability (479/480)^2000 ≈ 1.5%.
    expect(seen.size).toBeGreaterThan(440);
  });
});

describe("ids that carry their logical shard", () => {
  it("a sharded id is a ULID plus two base-32 digits, valid wherever ids are, and decodes to its shard", () => {
    for (const shard of [0, 1, 15, 31, 32, 255, 256, 479]) {
      const id = newOrganizationScopedId(shard);
      expect(id).toHaveLength(28);
      expect(ID_PATTERN.test(id)).toBe(true);
      expect(logicalShardOfId(id)).toBe(shard);
    }
    expect(newOrganizationScopedId(15).slice(26)).toBe("0F");
    expect(newOrganizationScopedId(479).slice(26)).toBe("EZ");
    // Shard numbers past the logical shards fit the format but are not issued, and decode to no shard.
    expect(() => newOrganizationScopedId(480)).toThrow(RangeError);
    expect(() => newOrganizationScopedId(1.5)).toThrow(RangeError);
    expect(shardNumberOfId(newShardedId(1023))).toBe(1023);
    expect(logicalShardOfId(newShardedId(480))).toBeNull();
    expect(() => newShardedId(SHARD_NUMBERS)).toThrow(RangeError);
    expect(() => newShardedId(-1)).toThrow(RangeError);
  });

  it("a plain 26-character ULID (the directory's ids: users, tokens) names no logical shard", () => {
    expect(logicalShardOfId(newId())).toBeNull();
    expect(logicalShardOfId("01JF3Z8Q7X5V2K9M4N6P8R0T1W")).toBeNull();
  });

  it("anything else names no shard: other lengths, lower case, letters outside Crockford's, shards not issued", () => {
    const id = newOrganizationScopedId(5);
    for (const bad of [
      "",
      "abc",
      id.toLowerCase(),
      `${id}0`,
      id.slice(0, 27),
      `${id.slice(0, 26)}F0`,
      `${id.slice(0, 26)}ZZ`,
      `${id.slice(0, 26)}0U`,
      `8${id.slice(1)}`,
      `${id.slice(0, 26)}-5`,
    ]) {
      expect(logicalShardOfId(bad), bad).toBeNull();
    }
  });

  it("sharded ids keep time order with each other and with the older form", () => {
    const older = newId();
    const a = newOrganizationScopedId(479);
    const b = newOrganizationScopedId(0);
    const c = newOrganizationScopedId(200);
    expect([c, older, b, a].sort()).toEqual([older, a, b, c]);
  });
});

describe("the API already takes sharded ids", () => {
  // The wiring step switches the services to newShardedId (docs/scaling.md "Id format"); clients must see no
  // difference but the length. An unknown id of the new form is an unknown id (404), never a malformed one (400).
  it("an unknown 28-character id answers 404 on the routes that take an id", async () => {
    const user = await registerUser();
    for (const path of ["/document/", "/table/", "/project/", "/workspace/", "/snapshot/", "/automation/"]) {
      const res = await call("GET", `${path}${newOrganizationScopedId(137)}`, { token: user.token });
      expect(res.status, path).toBe(404);
    }
  });
});

describe("the physical databases of the map", () => {
  it("every database SHARD_MAP names is bound, is a separate database and carries its kind's schema", async () => {
    const bindings = shardBindings();
    expect(bindings).toEqual(["SHARD_0", "SHARD_1", "SHARD_2", "SHARD_3"]);
    const marker = `probe-${crypto.randomUUID()}`;
    // A row written to one database is seen by no other (they are not aliases of one database).
    await env.SHARD_1!.prepare("INSERT INTO d1_migrations (name) VALUES (?)").bind(marker).run();
    try {
      for (const binding of ["DB", ...bindings] as const) {
        const db = env[binding]!;
        const tables = await db
          .prepare(
            "SELECT group_concat(name) AS names FROM (SELECT name FROM sqlite_master WHERE type = 'table' AND name IN ('access_tokens', 'cells', 'documents', 'users') ORDER BY name)",
          )
          .first<{ names: string }>();
        // The directory: users and tokens, no organization data; a shard: organization data and its copy of users.
        expect(tables?.names, binding).toBe(binding === "DB" ? "access_tokens,users" : "cells,documents,users");
        const seen = await db
          .prepare("SELECT count(*) AS n FROM d1_migrations WHERE name = ?")
          .bind(marker)
          .first<{ n: number }>();
        expect(seen?.n, binding).toBe(binding === "SHARD_1" ? 1 : 0);
      }
    } finally {
      await env.SHARD_1!.prepare("DELETE FROM d1_migrations WHERE name = ?").bind(marker).run();
    }
  });
});
