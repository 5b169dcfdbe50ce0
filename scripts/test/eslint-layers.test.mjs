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
  // The pending exceptions lift exactly one restriction each.
  ["src/services/formula/expression.ts", `import { z } from "@hono/zod-openapi";`, false],
  ["src/services/formula/expression.ts", `import { parseRange } from "../../http/range";`, true],
  ["src/lib/etag.ts", `import { preconditionFailed } from "../errors";`, false],
  ["src/lib/etag.ts", `import { Hono } from "hono";`, true],
];

describe("eslint.config.mjs: import direction", { concurrency: true }, () => {
  for (const [file, line, expected] of cases) {
    test(`${file}: ${line} is ${expected ? "refused" : "allowed"}`, async () => {
      assert.equal(await restricted(file, line), expected);
    });
  }
});

describe("eslint.config.mjs: base64 only in src/lib", { concurrency: true }, () => {
  for (const [file, expected] of [["src/services/media/audio.ts", true], ["src/site/handler.tsx", true], ["src/lib/base64.ts", false]]) {
    test(`btoa in ${file} is ${expected ? "refused" : "allowed"}`, async () => {
      assert.equal(await restricted(file, "export const x = btoa(\"a\") + atob(\"YQ==\");", "no-restricted-globals"), expected);
    });
  }
});
