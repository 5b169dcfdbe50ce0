// npm run search:reindex [-- --url http://127.0.0.1:8787]: rebuilds the search index of a running API from its real
// tables and objects (docs/api-guide.md › Search), by calling POST /admin/search/reindex until it reports no next page.
// The index is derived data: a database restored from a backup (which copies the real tables only; D1 cannot export
// FTS5 tables) or moved between shards is reindexed this way. ADMIN_TOKEN comes from the environment or .dev.vars;
// the URL from --url, API_URL, or the local wrangler dev default.
import path from "node:path";
import { readDevVars } from "./lib/devvars.mjs";
import { ROOT } from "./lib/proc.mjs";

const args = process.argv.slice(2);
const urlAt = args.indexOf("--url");
const base = (urlAt >= 0 ? args[urlAt + 1] : process.env.API_URL) ?? "http://127.0.0.1:8787";
const token = process.env.ADMIN_TOKEN ?? readDevVars(path.join(ROOT, ".dev.vars")).ADMIN_TOKEN;
if (!token) {
  console.error("search:reindex needs ADMIN_TOKEN (in the environment or .dev.vars)");
  process.exit(2);
}

let cursor = null;
let documents = 0;
const started = performance.now();
do {
  const res = await fetch(`${base}/admin/search/reindex`, {
    method: "POST",
    headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
    body: JSON.stringify({ cursor }),
  });
  const body = await res.json().catch(() => null);
  if (!res.ok) {
    console.error(`POST /admin/search/reindex → ${res.status} ${JSON.stringify(body)}`);
    process.exit(1);
  }
  documents += body.data.documents;
  cursor = body.data.nextCursor;
  process.stdout.write(`\rreindexed ${documents} documents`);
} while (cursor);
console.log(`\nsearch index rebuilt in ${((performance.now() - started) / 1000).toFixed(1)} s`);
