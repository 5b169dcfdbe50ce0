// npm run shard:move: what it refuses before calling anything (the README tour runs a real move against npm start).
// node --test scripts/test/ (npm test's scripts stage).
import assert from "node:assert/strict";
import { spawn, spawnSync } from "node:child_process";
import http from "node:http";
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
  for (const args of [
    [],
    ["12"],
    ["twelve", "SHARD_1"],
    ["01M8CDZVJRP81RX40HCBM39238", "SHARD_1"],
    ["12", "DB"],
    ["12", "SHARD_1", "--grace", "-1"],
  ]) {
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

test("refuses a --max-calls outside 10–900", () => {
  for (const n of ["5", "901", "ten"]) {
    const r = run("12", "SHARD_1", "--max-calls", n);
    assert.equal(r.status, 2, `${n}: ${r.stderr}`);
    assert.match(r.stderr, /usage: npm run shard:move/);
  }
});

test("drives the move a step at a time, passing each cursor back, then drops the old copy until done", async () => {
  // A stand-in for the API: two steps that are not done, then the summary; then the drop, in two calls.
  const bodies = [];
  const answers = [
    {
      done: false,
      cursor: "c1",
      progress: { phase: "copy", table: "rows", tableIndex: 10, tables: 29, rowsCopied: 40, rowsVerified: 0 },
    },
    {
      done: false,
      cursor: "c2",
      progress: { phase: "verify", table: "cells", tableIndex: 11, tables: 29, rowsCopied: 90, rowsVerified: 30 },
    },
    { done: true, logical: 12, from: "SHARD_0", to: "SHARD_1", rows: { rows: 40, cells: 50 }, readOnlyMs: 7 },
    { logical: 12, from: "SHARD_0", rows: 60, done: false },
    { logical: 12, from: "SHARD_0", rows: 30, done: true },
  ];
  const server = http.createServer((req, res) => {
    let text = "";
    req.on("data", (chunk) => (text += chunk));
    req.on("end", () => {
      bodies.push({ url: req.url, body: JSON.parse(text) });
      res.setHeader("content-type", "application/json");
      res.end(JSON.stringify({ data: answers[bodies.length - 1] }));
    });
  });
  await new Promise((r) => server.listen(0, "127.0.0.1", r));
  try {
    const { port } = server.address();
    const child = spawn(
      process.execPath,
      [path.join(ROOT, "scripts/shard-move.mjs"), "12", "SHARD_1", "--grace", "0", "--max-calls", "20"],
      {
        env: { ...process.env, ADMIN_TOKEN: "x", API_URL: `http://127.0.0.1:${port}` },
      },
    );
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (d) => (stdout += d));
    child.stderr.on("data", (d) => (stderr += d));
    const status = await new Promise((r) => child.on("close", r));
    assert.equal(status, 0, stderr);
    assert.deepEqual(
      bodies.map((b) => [b.url, b.body.cursor ?? null, b.body.maxCalls ?? null]),
      [
        ["/admin/shards/move", null, 20],
        ["/admin/shards/move", "c1", 20],
        ["/admin/shards/move", "c2", 20],
        ["/admin/shards/drop", null, 20],
        ["/admin/shards/drop", null, 20],
      ],
    );
    assert.match(stdout, /copy rows \(11\/29\): 40 rows copied, 0 verified/);
    assert.match(stdout, /verify cells \(12\/29\): 90 rows copied, 30 verified/);
    assert.match(stdout, /logical shard 12: SHARD_0 → SHARD_1, 90 rows copied and verified; read-only for 7 ms/);
    assert.match(stdout, /Dropped the old copy: 90 rows deleted from SHARD_0/);
  } finally {
    server.close();
  }
});

/** Runs the command against a stand-in API that gives `answers` in turn ({ status, body }, or the data of a 200); what it was asked and said. */
async function against(answers, ...args) {
  const bodies = [];
  const server = http.createServer((req, res) => {
    let text = "";
    req.on("data", (chunk) => (text += chunk));
    req.on("end", () => {
      bodies.push({ url: req.url, body: JSON.parse(text) });
      const answer = answers[bodies.length - 1];
      res.statusCode = answer?.status ?? 200;
      res.setHeader("content-type", "application/json");
      res.end(JSON.stringify(answer?.status ? answer.body : { data: answer }));
    });
  });
  await new Promise((r) => server.listen(0, "127.0.0.1", r));
  try {
    const { port } = server.address();
    const child = spawn(process.execPath, [path.join(ROOT, "scripts/shard-move.mjs"), ...args], {
      env: { ...process.env, ADMIN_TOKEN: "x", API_URL: `http://127.0.0.1:${port}` },
    });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (d) => (stdout += d));
    child.stderr.on("data", (d) => (stderr += d));
    const status = await new Promise((r) => child.on("close", r));
    return { status, stdout, stderr, asked: bodies.map((b) => [b.url, b.body]) };
  } finally {
    server.close();
  }
}

test("--abort takes an optional binding only of the form SHARD_k", () => {
  const r = run("12", "DB", "--abort");
  assert.equal(r.status, 2, r.stderr);
  assert.match(r.stderr, /usage: npm run shard:move/);
});

test("--abort stops the move, then deletes what it copied, call after call until done, naming the target the first answer found", async () => {
  const r = await against(
    [
      { logical: 12, from: "SHARD_0", to: "SHARD_1", stopped: true, rows: 8, done: false },
      { logical: 12, from: "SHARD_0", to: "SHARD_1", stopped: false, rows: 4, done: true },
    ],
    "12",
    "--abort",
    "--max-calls",
    "15",
  );
  assert.equal(r.status, 0, r.stderr);
  assert.deepEqual(r.asked, [
    ["/admin/shards/abort", { logical: 12, maxCalls: 15 }],
    ["/admin/shards/abort", { logical: 12, to: "SHARD_1", maxCalls: 15 }],
  ]);
  assert.match(r.stdout, /Stopped the move of logical shard 12: its organizations are writable again in SHARD_0/);
  assert.match(r.stdout, /Deleted what the move had copied: 12 rows from SHARD_1/);
});

test("a move whose copy differs: the command deletes the target's copy through the abort route until done, then fails", async () => {
  const differs =
    "logical shard 12: the copy in SHARD_1 differs from SHARD_0 in projects (4 → 4 rows so far). The move stopped: …";
  const r = await against(
    [
      {
        done: false,
        cursor: "c1",
        progress: { phase: "verify", table: "projects", tableIndex: 3, tables: 29, rowsCopied: 40, rowsVerified: 0 },
      },
      { status: 409, body: { error: "ConflictError", message: differs } },
      { logical: 12, from: "SHARD_0", to: "SHARD_1", stopped: false, rows: 30, done: false },
      { logical: 12, from: "SHARD_0", to: "SHARD_1", stopped: false, rows: 10, done: true },
    ],
    "12",
    "SHARD_1",
    "--grace",
    "0",
  );
  assert.equal(r.status, 1, r.stderr);
  assert.deepEqual(r.asked, [
    ["/admin/shards/move", { logical: 12, to: "SHARD_1" }],
    ["/admin/shards/move", { logical: 12, to: "SHARD_1", cursor: "c1" }],
    ["/admin/shards/abort", { logical: 12, to: "SHARD_1" }],
    ["/admin/shards/abort", { logical: 12, to: "SHARD_1" }],
  ]);
  assert.match(r.stderr, /409 .* differs from SHARD_0 in projects/);
  assert.match(r.stdout, /Deleted what the move had copied: 40 rows from SHARD_1/);
});

test("a move refused before it began (another move of the shard under way) deletes nothing", async () => {
  const r = await against(
    [{ status: 409, body: { error: "ConflictError", message: "logical shard 12 is being moved out of SHARD_1" } }],
    "12",
    "SHARD_1",
  );
  assert.equal(r.status, 1, r.stderr);
  assert.deepEqual(
    r.asked.map(([url]) => url),
    ["/admin/shards/move"],
  );
});

test("a move that fails part way otherwise deletes nothing and says how to go on or back", async () => {
  const r = await against(
    [
      {
        done: false,
        cursor: "c1",
        progress: { phase: "copy", table: "rows", tableIndex: 10, tables: 29, rowsCopied: 40, rowsVerified: 0 },
      },
      { status: 500, body: { error: "InternalError", message: "Internal error" } },
    ],
    "12",
    "SHARD_1",
  );
  assert.equal(r.status, 1, r.stderr);
  assert.deepEqual(
    r.asked.map(([url]) => url),
    ["/admin/shards/move", "/admin/shards/move"],
  );
  assert.match(r.stderr, /run the same command again .*\(npm run shard:move -- 12 SHARD_1 --abort\)/);
});
