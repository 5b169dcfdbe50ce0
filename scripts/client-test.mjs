// The typed client (client/) against a running service, started the way `npm start` starts it (local D1
// migrations, wrangler dev, on a fresh local state): its retry / idempotency / error rules against a scripted fetch,
// then the README's tour through the client (client/test/tour.ts) and the README's y-websocket examples
// (scripts/lib/collab-readme.mjs). Run by npm test; alone: node scripts/client-test.mjs
import { ADMIN_TOKEN, seedUser, startApi } from "./bench/lib.mjs";
import { readmeCollab } from "./lib/collab-readme.mjs";
// The client's sources import their siblings by ".js" names (as its build emits them); the hook maps them to .ts.
import "./lib/ts-imports.mjs";

const results = [];
const fail = (what, err) => {
  console.error(`✗ ${what}\n${err?.stack ?? err}`);
  process.exitCode = 1;
};

const { tour, retrySemantics } = await import("../client/test/tour.ts");
try {
  for (const s of await retrySemantics()) results.push(`client: ${s}`);
} catch (err) {
  fail("client retry semantics", err);
}

const api = await startApi();
try {
  for (const s of await tour(api.url, ADMIN_TOKEN)) results.push(`client tour: ${s}`);
} catch (err) {
  fail("client tour", err);
}
try {
  const u = await seedUser(api, "Collab");
  for (const s of await readmeCollab(api, u.token, u.projectId)) results.push(`README collaborative editing: ${s}`);
} catch (err) {
  fail("README collaborative editing (y-websocket)", err);
} finally {
  await api.stop();
}
for (const r of results) console.log(`✓ ${r}`);
process.exit(process.exitCode ?? 0);
