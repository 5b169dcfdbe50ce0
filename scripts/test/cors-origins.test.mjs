// npm start's reading of CORS_ALLOWED_ORIGINS (scripts/lib/cors-origins.mjs): exact origins pass through to the
// Worker; `*` or a malformed entry stops npm start before anything starts, with one line saying why.
// node --test scripts/test/ (npm test runs it in its "scripts" stage).
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import path from "node:path";
import { describe, test } from "node:test";
import { isolatedEnv, ROOT } from "../lib/proc.mjs";
import { parseCorsOrigins } from "../lib/cors-origins.mjs";

describe("CORS_ALLOWED_ORIGINS for npm start", () => {
  test("exact origins are kept (a trailing slash dropped); `*`, paths, other schemes and upper case are problems", () => {
    assert.deepEqual(parseCorsOrigins(" http://localhost:5173/ , https://app.example.com:8443"), {
      origins: ["http://localhost:5173", "https://app.example.com:8443"],
      problems: [],
    });
    assert.deepEqual(parseCorsOrigins(undefined), { origins: [], problems: [] });
    assert.deepEqual(parseCorsOrigins("*,https://a.example/app,ftp://b.example,https://C.example,null").problems, [
      "*",
      "https://a.example/app",
      "ftp://b.example",
      "https://C.example",
      "null",
    ]);
  });

  test("npm start and deploy:check read the list as the Worker does (src/http/cors.ts)", async () => {
    // Node 22 (the pinned `node` of npm test) strips the types of the Worker's module.
    const worker = await import("../../src/http/cors.ts");
    const samples = [
      "",
      "*",
      "https://app.example.com",
      " http://localhost:5173/ , https://app.example.com:8443",
      "https://a.example/app,ftp://b.example,https://C.example,null,http://[::1]:3000",
      "https://app.example.com?x=1,https://user@app.example.com,https://app.example.com#f",
    ];
    for (const value of samples) {
      const { origins, problems } = parseCorsOrigins(value);
      assert.deepEqual(
        [...worker.allowedCorsOrigins({ CORS_ALLOWED_ORIGINS: value })],
        origins,
        `allowed origins of ${JSON.stringify(value)}`,
      );
      assert.deepEqual(worker.corsOriginProblems(value), problems, `problems of ${JSON.stringify(value)}`);
    }
  });

  test("npm start's settings carry the list, normalised, for wrangler dev's CORS_ALLOWED_ORIGINS", async () => {
    const { readSettings } = await import("../lib/service.mjs");
    assert.equal(
      readSettings({ CORS_ALLOWED_ORIGINS: "http://localhost:5173/, https://app.example.com" }).corsAllowedOrigins,
      "http://localhost:5173,https://app.example.com",
    );
    assert.equal(readSettings({}).corsAllowedOrigins, "");
    assert.throws(
      () => readSettings({ CORS_ALLOWED_ORIGINS: "*" }),
      /CORS_ALLOWED_ORIGINS: "\*" is not an exact origin/,
    );
  });

  test("npm start refuses `*` before starting anything", () => {
    const res = spawnSync(process.execPath, [path.join(ROOT, "scripts", "start.mjs")], {
      encoding: "utf8",
      timeout: 30_000,
      env: isolatedEnv({ CORS_ALLOWED_ORIGINS: "http://localhost:5173,*", PORT: "1" }),
    });
    assert.equal(res.status, 1, `${res.stdout}${res.stderr}`);
    assert.match(res.stderr, /✗ CORS_ALLOWED_ORIGINS: "\*" is not an exact origin/);
    assert.match(res.stderr, /never `\*`/);
    // Nothing was started: no wrangler, no migration output.
    assert.doesNotMatch(`${res.stdout}${res.stderr}`, /wrangler|migrations/i);
  });
});
