// npm run bench -- shards, small: the simulation of docs/scaling.md keeps its done-when on populations that need
// moves, is deterministic, and moves only whole logical shards. node --test scripts/test/ (npm test's scripts stage).
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import path from "node:path";
import { describe, test } from "node:test";
import { ROOT } from "../lib/proc.mjs";
import { DATABASE_BYTES, population, simulate, spread } from "../bench/shards.mjs";
import { LOGICAL_SHARDS, physicalIndexOf } from "../../src/tenancy/kernel/map.ts";

const SMALL = { orgs: 5_000, databases: 24, totalGb: 60, orgQuotaGb: 4 };

describe("shards bench", { concurrency: true }, () => {
  test("a small population needs moves, and after them every hot database holds one logical shard alone and none passes 10 GB", () => {
    for (const seed of [1, 2, 3, 4, 5]) {
      const r = simulate({ ...SMALL, seed });
      assert.ok(
        r.violationsBefore.length > 0,
        `seed ${seed}: the placement alone should leave a hot database shared (else the test proves nothing)`,
      );
      assert.deepEqual(r.violationsAfter, [], `seed ${seed}`);
      const limit = 2 * spread(r.after.map((d) => d.load)).mean;
      for (const d of r.after) {
        if (d.load > limit) assert.equal(d.shards.length, 1, `seed ${seed}: SHARD_${d.index}`);
        assert.ok(d.storage <= DATABASE_BYTES, `seed ${seed}: SHARD_${d.index} holds ${d.storage} bytes`);
      }
    }
  });

  test("the default population (100,000 organizations over 96 databases) holds the done-when, fast", () => {
    const t0 = performance.now();
    const r = simulate({});
    assert.ok(performance.now() - t0 < 30_000);
    assert.equal(r.pop.logical.length, 100_000);
    assert.equal(r.after.length, 96);
    assert.ok(r.violationsBefore.length > 0);
    assert.deepEqual(r.violationsAfter, []);
  });

  test("moves carry whole logical shards: every database is a set of logical shards, totals are conserved", () => {
    const r = simulate({ ...SMALL, seed: 7 });
    const seen = r.after.flatMap((d) => d.shards).sort((a, b) => a - b);
    assert.deepEqual(
      seen,
      Array.from({ length: LOGICAL_SHARDS }, (_, l) => l),
    );
    const sum = (dbs, k) => dbs.reduce((s, d) => s + d[k], 0);
    assert.ok(Math.abs(sum(r.before, "load") - 1) < 1e-9);
    assert.ok(Math.abs(sum(r.after, "load") - 1) < 1e-9);
    assert.ok(Math.abs(sum(r.before, "storage") - sum(r.after, "storage")) < 1);
    // Before any move, each logical shard is where the Worker's default map puts it.
    const map = { physical: SMALL.databases, moved: {}, closed: [] };
    for (const d of r.before) for (const l of d.shards) assert.equal(physicalIndexOf(l, map), d.index);
    for (const m of r.moves) assert.notEqual(m.from, m.to);
  });

  test("a database count that does not divide the 480 logical shards is refused", () => {
    assert.throws(() => simulate({ ...SMALL, databases: 7 }), /must divide 480/);
  });

  test("deterministic: the same seed gives the same population, placement and moves; another seed does not", () => {
    const a = simulate({ ...SMALL, seed: 11 });
    const b = simulate({ ...SMALL, seed: 11 });
    const c = population({ ...SMALL, seed: 12 });
    assert.deepEqual([...a.pop.logical], [...b.pop.logical]);
    assert.deepEqual(a.moves, b.moves);
    assert.notDeepEqual([...a.pop.logical], [...c.logical]);
  });

  test("npm run bench -- shards prints both balance tables and the spread, and exits 0", () => {
    const res = spawnSync(
      process.execPath,
      [path.join(ROOT, "scripts", "bench.mjs"), "shards", "--orgs", "5000", "--databases", "24", "--total-gb", "60"],
      { encoding: "utf8" },
    );
    assert.equal(res.status, 0, `${res.stdout}${res.stderr}`);
    assert.match(res.stdout, /before moves/);
    assert.match(res.stdout, /after \d+ greedy moves/);
    assert.match(res.stdout, /spread: busiest database [\d.]+× → [\d.]+× the mean query load/);
    assert.match(res.stdout, /✓ done-when holds/);
  });
});
