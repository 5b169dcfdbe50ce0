// npm run shard:move: what it refuses before calling anything (the README tour runs a real move against npm start).
// node --test scripts/test/ (npm test's scripts stage).
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import path from "node:path";
import { test } from "node:test";
import { ROOT } from "../lib/proc.mjs";

const run = (...args) =>
  spawnSync(process.execPath, [path.join(ROOT, "scripts/shard-move.mjs"), ...args], {
    encoding: "utf8",
    // Nothing listens here: a call that slipped through would fail with 1, not the usage's 2.
    env: { ...process.env, ADMIN_TOKEN: "x", API_URL: "http://127.0.0.1:9" },
  });

test("refuses a shard that is neither a number nor an organization-scoped id, and a binding that is not SHARD_k", () => {
  for (const args of [[], ["12"], ["twelve", "SHARD_1"], ["01M8CDZVJRP81RX40HCBM39238", "SHARD_1"], ["12", "DB"], ["12", "SHARD_1", "--grace", "-1"]]) {
    const r = run(...args);
    assert.equal(r.status, 2, `${args.join(" ")}: ${r.stderr}`);
    assert.match(r.stderr, /usage: npm run shard:move/);
  }
});

test("takes an organization's id for its logical shard (its last two characters), then calls the API", () => {
  // "3K" is logical shard 3 * 32 + 18 = 114; the unreachable API makes the call fail (1), after the arguments passed.
  const r = run("01M8CDZVJRP81RX40HCBM392383K", "SHARD_1", "--grace", "0");
  assert.equal(r.status, 1, r.stderr);
  assert.doesNotMatch(r.stderr, /usage/);
  assert.match(r.stderr, /No API at http:\/\/127.0.0.1:9/);
});
