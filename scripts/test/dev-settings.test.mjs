// Services that tests and benches start take nothing of the developer's local settings: the README's order is
// `npm start` (which writes .dev.vars and .dev/env.sh), `source .dev/env.sh` in a shell (which exports ADMIN_TOKEN),
// then `npm test` in that shell. wrangler reads declared secrets from its environment over --env-file, so a test
// service used to take the developer's admin token, and the packed-client test failed with 401.
import assert from "node:assert/strict";
import { existsSync, rmSync, writeFileSync } from "node:fs";
import path from "node:path";
import { after, before, test } from "node:test";
import { ADMIN_TOKEN, startApi } from "../bench/lib.mjs";
import { ROOT } from "../lib/proc.mjs";
import { readSettings } from "../lib/service.mjs";

const DEVELOPER = {
  ADMIN_TOKEN: "adm_developer_own_token",
  SIGNING_SECRET: "sig_developer",
  CONVERTER_SECRET: "cnv_developer",
};
const devVars = path.join(ROOT, ".dev.vars");
const madeDevVars = !existsSync(devVars);
const saved = Object.fromEntries(Object.keys(DEVELOPER).map((k) => [k, process.env[k]]));

before(() => {
  // As after npm start: a .dev.vars of the developer's (kept when there is one) and a shell that sourced env.sh.
  if (madeDevVars)
    writeFileSync(
      devVars,
      Object.entries(DEVELOPER)
        .map(([k, v]) => `${k}="${v}"`)
        .join("\n") + "\n",
      { mode: 0o600 },
    );
  Object.assign(process.env, DEVELOPER);
});
after(() => {
  if (madeDevVars) rmSync(devVars, { force: true });
  for (const [k, v] of Object.entries(saved)) {
    if (v === undefined) delete process.env[k];
    else process.env[k] = v;
  }
});

test(
  "a test service answers its own admin token, not the developer's, in a shell that sourced .dev/env.sh",
  { timeout: 180_000 },
  async () => {
    const api = await startApi();
    try {
      const register = (token) =>
        fetch(`${api.url}/admin/users`, {
          method: "POST",
          headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
          body: JSON.stringify({ email: `dev-settings-${Date.now()}-${Math.random()}@example.com`, name: "Settings" }),
        });
      assert.equal((await register(ADMIN_TOKEN)).status, 200);
      assert.equal((await register(DEVELOPER.ADMIN_TOKEN)).status, 401);
    } finally {
      await api.stop();
    }
  },
);

test("npm start run by a test keeps its secrets in its own folder (DEV_VARS), never the developer's .dev.vars", () => {
  assert.equal(readSettings({}).devVarsFile, devVars);
  assert.equal(readSettings({ DEV_VARS: "/tmp/x/.dev.vars" }).devVarsFile, "/tmp/x/.dev.vars");
});
