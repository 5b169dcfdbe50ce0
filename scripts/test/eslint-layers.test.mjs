// The layer rules of eslint.config.mjs catch what they name: each case lints one import as if it stood in a file
// of that layer (ESLint's lintText with a file path; no file is written) and expects no-restricted-imports to
// report it or not. node --test scripts/test/ (npm test runs it in its "scripts" stage).
import assert from "node:assert/strict";
import { before, describe, test } from "node:test";
import { ROOT } from "../lib/proc.mjs";
import { importTool } from "../lib/tools.mjs";

let eslint;
before(async () => {
  const { ESLint } = await importTool("eslint");
  eslint = new ESLint({ cwd: ROOT });
});

/** Whether `line`, in a file at `file` (relative to the repository), breaks an import-direction rule (or `rule`). */
async function restricted(file, line, rule = "no-restricted-imports") {
  const [result] = await eslint.lintText(`${line}\nexport {};\n`, { filePath: `${ROOT}/${file}` });
  return result.messages.some((m) => m.ruleId === rule);
}

const cases = [
  // [file, import, restricted?]
  ["src/services/media/audio.ts", `import { parseRange } from "../../http/range";`, true],
  ["src/services/tables/rows.ts", `export { parseRange } from "../../http/range";`, true],
  ["src/services/tables/rows.ts", `import { Hono } from "hono";`, true],
  ["src/services/tables/rows.ts", `import type { Context } from "hono/jsx";`, true],
  ["src/services/tables/rows.ts", `import { z } from "@hono/zod-openapi";`, true],
  ["src/services/tables/rows.ts", `import { app } from "../../routes/index";`, true],
  ["src/services/tables/rows.ts", `import { app } from "../../app";`, true],
  ["src/services/tables/rows.ts", `import { z } from "zod";`, false],
  ["src/services/tables/rows.ts", `import { Db } from "../../env";`, false],
  ["src/services/tables/rows.ts", `import { emit } from "../events/events";`, false],
  ["src/services/tables/rows.ts", `import { runAction } from "../automations/runner";`, true],
  ["src/services/context.ts", `import { runAction } from "./automations/runner";`, true],
  ["src/services/automations/runner.ts", `import { createRows } from "../tables/rows";`, false],
  ["src/services/automations/runner.ts", `import { emit } from "../events/events";`, false],
  ["src/services/events/events.ts", `import { createRows } from "../tables/rows";`, true],
  ["src/services/events/events.ts", `import { runAction } from "../automations/runner";`, true],
  ["src/services/events/events.ts", `import type { Env } from "../../env";`, false],
  ["src/lib/r2.ts", `import { ApiError } from "../errors";`, true],
  ["src/lib/r2.ts", `import { read } from "../services/context";`, true],
  ["src/lib/docx.ts", `import { inspectZip } from "../../converter/src/zip";`, false],
  ["src/lib/r2.ts", `import { base64UrlEncode } from "./base64";`, false],
  ["src/routes/rows/list.ts", `import { eq } from "drizzle-orm";`, true],
  ["src/routes/rows/list.ts", `import { rows } from "../../db/schema";`, true],
  ["src/routes/rows/list.ts", `import { listRows } from "../../services/tables/rows";`, false],
  ["src/routes/rows/list.ts", `import { defineRoute } from "../../http/route";`, false],
  ["src/db/client.ts", `import { read } from "../services/context";`, true],
  ["src/db/schema/index.ts", `export * from "./http";`, false],
  ["src/http/route.ts", `import { app } from "../routes/index";`, true],
  // No file is excepted any more: the ones that once were obey their layer like the rest.
  ["src/services/formula/expression.ts", `import { z } from "@hono/zod-openapi";`, true],
  ["src/lib/ids.ts", `import { z } from "@hono/zod-openapi";`, true],
  ["src/lib/etag.ts", `import { preconditionFailed } from "../errors";`, true],
  ["src/schemas/ids.ts", `import { z } from "@hono/zod-openapi";`, false],
  ["src/services/preconditions.ts", `import { preconditionFailed } from "../errors";`, false],
  // Tenancy behind its boundary: only the files TENANCY_DOORS names import it, through its face.
  ["src/services/tables/rows.ts", `import { idIssuer } from "../../tenancy";`, true],
  ["src/services/automations/runner.ts", `import { groupByShard } from "../../tenancy";`, true],
  ["src/http/route.ts", `import { idIssuer } from "../tenancy";`, true],
  ["src/db/client.ts", `import { idIssuer } from "../tenancy";`, true],
  ["src/app.ts", `import { startRepairs } from "./tenancy";`, true],
  ["src/services/context.ts", `import { idIssuer } from "../tenancy";`, false],
  ["src/services/context.ts", `import { idIssuer } from "../tenancy/kernel/ids";`, true],
  ["src/services/automations/shards.ts", `import { groupByShard } from "../../tenancy";`, false],
  ["src/index.ts", `import { startRepairs } from "./tenancy";`, false],
  ["src/routes/admin/moveShard.ts", `import { moveShardStep } from "../../tenancy";`, false],
  ["src/tenancy/kernel/ids.ts", `import { read } from "../../services/context";`, true],
  ["src/tenancy/kernel/ids.ts", `import { moveShard } from "../operations/moves";`, true],
  ["src/tenancy/operations/moves.ts", `import { readFence } from "../kernel/fence";`, false],
  ["src/tenancy/operations/repairs.ts", `import { repairUserCopies } from "../../services/identity/users";`, true],
];

describe("eslint.config.mjs: import direction", { concurrency: true }, () => {
  for (const [file, line, expected] of cases) {
    test(`${file}: ${line} is ${expected ? "refused" : "allowed"}`, async () => {
      assert.equal(await restricted(file, line), expected);
    });
  }
});

describe("eslint.config.mjs: base64 only in src/lib", { concurrency: true }, () => {
  for (const [file, expected] of [
    ["src/services/media/audio.ts", true],
    ["src/site/handler.tsx", true],
    ["src/lib/base64.ts", false],
  ]) {
    test(`btoa in ${file} is ${expected ? "refused" : "allowed"}`, async () => {
      assert.equal(
        await restricted(file, 'export const x = btoa("a") + atob("YQ==");', "no-restricted-globals"),
        expected,
      );
    });
  }
});

/** Whether `text`, linted as if it were the file `file`, breaks `rule`. */
async function breaks(file, text, rule) {
  const [result] = await eslint.lintText(text, { filePath: `${ROOT}/${file}` });
  return result.messages.some((m) => m.ruleId === rule);
}

/** A function of `n` lines of code (its braces included), with a comment and a blank line after each step. */
const fnOf = (n) =>
  `export function f(): number {\n  let x = 0;\n${"  x++;\n  // a step\n\n".repeat(n - 4)}  return x;\n}\n`;

describe("eslint.config.mjs: sizes", { concurrency: true }, () => {
  test("a file under src/ over 400 lines (comments and blank lines count) is refused; 400 pass", async () => {
    const lines = (n) =>
      Array.from({ length: n }, (_, i) => (i % 2 ? "// a comment" : `export const x${i} = ${i};`)).join("\n") + "\n";
    assert.equal(await breaks("src/services/tables/rows.ts", lines(401), "max-lines"), true);
    assert.equal(await breaks("src/services/tables/rows.ts", lines(400), "max-lines"), false);
    assert.equal(await breaks("test/services/big.test.ts", lines(401), "max-lines"), false);
  });

  for (const file of [
    "src/services/automations/runner.ts",
    "src/services/automations/actions.ts",
    "src/durable/DocumentRoom.ts",
    "src/durable/room/writeBack.ts",
    "src/services/tables/rows.ts",
    "src/site/blocks.tsx",
  ]) {
    test(`${file}: a function over 60 lines (blank lines and comments not counted) is refused`, async () => {
      assert.equal(await breaks(file, fnOf(61), "max-lines-per-function"), true);
      assert.equal(await breaks(file, fnOf(60), "max-lines-per-function"), false);
    });
  }

  test("tests may hold longer functions; a function of src/ only with its reason where it stands", async () => {
    assert.equal(await breaks("test/services/big.test.ts", fnOf(61), "max-lines-per-function"), false);
    const excused = `// eslint-disable-next-line max-lines-per-function -- one case per kind\n${fnOf(61)}`;
    assert.equal(await breaks("src/services/tables/rows.ts", excused, "max-lines-per-function"), false);
  });
});
