/// <reference types="vite/client" />
/**
 * Tests you find by operation (test/README.md): every operation a route file of src/routes/<folder> declares has its
 * tests in test/routes/<folder>/<operationId>.test.ts — or, when one route file declares several operations, in a
 * `describe("<operationId>")` of the test file of a sibling operation. A test file there is named after an operation
 * of its folder (or "<operationId>.<aspect>.test.ts", one more file of it), or is a scenario file that follows
 * behaviour across operations (SCENARIO_FILES, each with its reason). An operation tested elsewhere needs an entry
 * in OPERATIONS_TESTED_ELSEWHERE saying where.
 */
import { describe, expect, it } from "vitest";

// The sources as text: the route files to read their operationIds, the test files to find their describe blocks.
const routeSources = import.meta.glob<string>("../../src/routes/**/*.{ts,tsx}", {
  query: "?raw",
  import: "default",
  eager: true,
});
const testSources = import.meta.glob<string>("../routes/**/*.test.ts", {
  query: "?raw",
  import: "default",
  eager: true,
});

/** Files of test/routes that follow one behaviour across several operations, by "<folder>/<file>", with the reason. */
const SCENARIO_FILES: Record<string, string> = {
  "automations/runs.test.ts": "event runs, budgets and rights of the runner (queue consumer), started by other writes",
  "automations/cascade.test.ts": "cascade budgets across runs the runner starts from row writes",
  "automations/webhooks.test.ts": "webhook delivery by the runner: signing, concurrency, retries",
  "automations/schedules.test.ts": "the Worker's scheduled handler (Cron), not a route",
  "automations/shards.test.ts": "the runner and the Cron claim across shard databases",
  "automations/event-retry.test.ts": "events retried through the queue",
  "automations/ssrf.test.ts": "address ranges refused at save and at send time (create, update and delivery)",
  "formulas/lookups.test.ts": "lookups and rollups computed across linked tables by the row and column routes",
  "search/site.test.ts": "the reader site's search page, served by the portal site rather than an API operation",
  "portals/machine-readable.test.ts": "the reader site's llms.txt and page Markdown, served by the portal site",
  "changes/replay.test.ts":
    "the change feed replayed over random writes of the row and document routes (property tests)",
};

/** Operations whose tests live outside their folder, with where and why. */
const OPERATIONS_TESTED_ELSEWHERE: Record<string, string> = {
  moveLogicalShard: "test/shared/shard-move-steps.test.ts and shard-live-move.test.ts (the shard-move suites)",
  dropMovedShardCopy: "test/shared/shard-move-steps.test.ts (the shard-move suites)",
  abortLogicalShardMove: "test/shared/shard-move-steps.test.ts (the shard-move suites)",
};

interface Operation {
  id: string;
  folder: string;
  file: string;
}

/** The path below `root` of `p`, e.g. "tables/get.ts" for ".../src/routes/tables/get.ts". */
const below = (p: string, root: string) => p.slice(p.indexOf(root) + root.length);

function operations(): Operation[] {
  const out: Operation[] = [];
  for (const [p, text] of Object.entries(routeSources)) {
    const [folder, file] = below(p, "src/routes/").split("/");
    if (!file) continue;
    for (const m of text.matchAll(/operationId:\s*"(\w+)"/g)) out.push({ id: m[1]!, folder: folder!, file });
  }
  return out;
}

const ops = operations();
const tests = Object.fromEntries(Object.entries(testSources).map(([p, text]) => [below(p, "routes/"), text]));
const describes = (text: string) => new Set([...text.matchAll(/\bdescribe\(\s*"(\w+)"/g)].map((m) => m[1]!));

describe("test layout", () => {
  it("sees the route files' operations and the test files", () => {
    expect(ops.length).toBeGreaterThan(100);
    expect(Object.keys(tests).length).toBeGreaterThan(90);
  });

  it("every operation has test/routes/<folder>/<operationId>.test.ts, or a describe of its name beside a sibling's", () => {
    const missing = ops.filter((op) => {
      if (`${op.folder}/${op.id}.test.ts` in tests || op.id in OPERATIONS_TESTED_ELSEWHERE) return false;
      const siblings = ops.filter((o) => o.folder === op.folder && o.file === op.file && o.id !== op.id);
      return !siblings.some((s) => describes(tests[`${s.folder}/${s.id}.test.ts`] ?? "").has(op.id));
    });
    expect(missing.map((op) => `${op.folder}/${op.file}: ${op.id}`)).toEqual([]);
  });

  it("every file of test/routes is named after an operation of its folder, or is a reasoned scenario file", () => {
    // "<operationId>.<aspect>.test.ts" (e.g. rows/queryRows.fuzz.test.ts) is one more file of that operation.
    const named = new Set(ops.map((op) => `${op.folder}/${op.id}`));
    const operationOf = (rel: string) => rel.replace(/(\.[\w-]+)?\.test\.ts$/, "");
    expect(Object.keys(tests).filter((rel) => !named.has(operationOf(rel)) && !(rel in SCENARIO_FILES))).toEqual([]);
  });

  it("every exception is still needed", () => {
    expect(Object.keys(SCENARIO_FILES).filter((rel) => !(rel in tests))).toEqual([]);
    const stale = Object.keys(OPERATIONS_TESTED_ELSEWHERE).filter(
      (id) =>
        !ops.some((op) => op.id === id) || ops.some((op) => op.id === id && `${op.folder}/${id}.test.ts` in tests),
    );
    expect(stale).toEqual([]);
  });

  it("every test/routes folder names a folder of src/routes", () => {
    const routeFolders = new Set(ops.map((op) => op.folder));
    expect(
      [...new Set(Object.keys(tests).map((rel) => rel.split("/")[0]!))].filter((f) => !routeFolders.has(f)),
    ).toEqual([]);
  });
});
