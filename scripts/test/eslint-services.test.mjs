// The service-shape rules of eslint.config.mjs catch what they name (docs/architecture.md, "Reads before
// authentication" and "Statements"): each case lints a snippet as if it stood in a file of src (ESLint's lintText
// with a file path; no file is written). node --test scripts/test/ (npm test runs it in its "scripts" stage).
import assert from "node:assert/strict";
import { before, describe, test } from "node:test";
import { ROOT } from "../lib/proc.mjs";
import { importTool } from "../lib/tools.mjs";

let eslint;
before(async () => {
  const { ESLint } = await importTool("eslint");
  eslint = new ESLint({ cwd: ROOT });
});

/** The lines `rule` reports in `code`, linted as the file `file`. */
async function reported(file, code, rule) {
  const [result] = await eslint.lintText(code, { filePath: `${ROOT}/${file}` });
  return result.messages.filter((m) => m.ruleId === rule).map((m) => m.line);
}

const SERVICE = "src/services/bookmarks/bookmarks.ts";
const HEAD = `declare const ctx: any;\ndeclare function read(ctx: unknown, q: unknown[]): Promise<unknown[]>;\n`;

describe("house/read-before-authentication", { concurrency: true }, () => {
  const rule = "house/read-before-authentication";
  const cases = [
    // [name, body of an async function, lines reported (counted from the function's first line)]
    ["a query awaited before read()", `const [t] = await ctx.db.select().from(x);\nawait read(ctx, [q]);`, [1]],
    ["a batch run before read()", `await ctx.db.batch([a, b]);\nconst [r] = await read(ctx, [q]);`, [1]],
    ["the directory read before read()", `const u = await ctx.dir.select().from(users);\nawait read(ctx, [q]);`, [1]],
    ["a statement built on ctx.db inside read()", `const [r] = await read(ctx, [ctx.db.select().from(x)]);`, []],
    ["a query after read()", `const [r] = await read(ctx, [q]);\nawait ctx.db.batch([a]);`, []],
    ["a function with no read() (called after authentication)", `await ctx.db.batch([a]);`, []],
  ];
  for (const [name, body, lines] of cases) {
    test(`${name}: ${lines.length ? "refused" : "allowed"}`, async () => {
      const code = `${HEAD}export async function verb() {\n${body}\n}\n`;
      const offset = HEAD.split("\n").length;
      assert.deepEqual(
        await reported(SERVICE, code, rule),
        lines.map((l) => l + offset),
      );
    });
  }
});

describe("verbs take an object input (src/routes)", { concurrency: true }, () => {
  const rule = "no-restricted-syntax";
  const ROUTE = "src/routes/bookmarks/get.ts";
  const head = `declare const c: any;\ndeclare function ctxOf(c: unknown): unknown;\ndeclare function verb(...a: unknown[]): unknown;\n`;
  const cases = [
    [`verb(ctxOf(c), c.req.valid("param").bookmarkId);`, true],
    [`verb(ctxOf(c), "b1");`, true],
    [`verb(ctxOf(c), c.req.valid("param"), c.req.valid("json"));`, true],
    [`const ctx = ctxOf(c);\nverb(ctx, c.req.valid("param").bookmarkId);`, true],
    [`verb(ctxOf(c), c.req.valid("param"));`, false],
    [`verb(ctxOf(c), { bookmarkId: c.req.valid("param").bookmarkId });`, false],
    [`verb(ctxOf(c));`, false],
  ];
  for (const [line, expected] of cases) {
    test(`${line} is ${expected ? "refused" : "allowed"}`, async () => {
      assert.equal((await reported(ROUTE, `${head}${line}\nexport {};\n`, rule)).length > 0, expected);
    });
  }
});

describe("no raw prepare in services", { concurrency: true }, () => {
  const code = `declare const d1: D1Database;\nexport const s = d1.prepare("SELECT 1").bind();\n`;
  for (const [file, expected] of [
    ["src/services/bookmarks/queries.ts", true],
    ["src/services/search/reindex.ts", true],
    ["src/db/d1.ts", false],
    ["src/tenancy/kernel/reads.ts", false],
  ]) {
    test(`.prepare() in ${file} is ${expected ? "refused" : "allowed"}`, async () => {
      assert.equal((await reported(file, code, "no-restricted-syntax")).length > 0, expected);
    });
  }
});
