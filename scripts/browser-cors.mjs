// CORS in a real browser (docs/api-guide.md › Browser clients (CORS)), part of scripts/browser-test.mjs: two local
// page servers play browser apps on other origins. The service is started with the first one's origin in
// CORS_ALLOWED_ORIGINS; the second is not listed. Pages get the API's address and a token in their query string.
//
// - app.html on the allowed origin: GET /me, a keyed JSON POST (preflighted), a content read whose ETag it reads
//   and sends back in If-Match, an error answer (404) whose body and x-d1-bookmark it reads, and the typed client
//   (client/src, bundled) creating a project and throwing ApiError; saves docs/cors-screenshot.png of the checklist.
// - app.html on the other origin: the same first call is refused by the browser (fetch rejects; Chromium logs the
//   CORS refusal), and so is a simple GET /health.
// - collab.html on the allowed origin: the collaboration ticket (a cross-origin POST), then y-websocket's provider
//   with it; the page reads the seeded paragraph from the synced Yjs document and adds one, which the API's
//   GET /document/{id}/content then shows; saves docs/cors-collab-screenshot.png.
import http from "node:http";
import path from "node:path";
import { ROOT } from "./lib/proc.mjs";

export const CORS_SCREENSHOT = path.join(ROOT, "docs", "cors-screenshot.png");
const COLLAB_SCREENSHOT = path.join(ROOT, "docs", "cors-collab-screenshot.png");

function assert(cond, message) {
  if (!cond) throw new Error(message);
}

const STYLE = `<style>body{font:16px/1.5 system-ui,sans-serif;margin:2rem;max-width:52rem;color:#1d2330}h1{font-size:1.4rem}
li{margin:.3rem 0}li.ok::marker{content:"✓  ";color:#137333}li.fail::marker{content:"✗  ";color:#b3261e}code{background:#eef1f5;padding:0 .25rem;border-radius:3px}
.origin{color:#555}</style>`;

// The page's own checklist: each step appends a line; data-state on <body> ends as "done" or "failed".
const LOG_JS = `
const q = new URLSearchParams(location.search);
const api = q.get("api"), token = q.get("token"), docId = q.get("doc");
const results = [];
function line(ok, text) {
  const li = document.createElement("li");
  li.className = ok ? "ok" : "fail";
  li.innerHTML = text;
  document.getElementById("log").append(li);
  results.push({ ok, text: li.textContent });
}
// Ports and e-mail addresses change from run to run; the page names neither, so its screenshot stays the same.
document.getElementById("where").textContent = q.get("where") ?? "";
`;

const APP_HTML = `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Browser app on another origin</title>${STYLE}
<script src="/lib.js"></script></head>
<body data-state="running"><h1>A browser app calling the workspace API cross-origin</h1><p class="origin" id="where"></p><ul id="log"></ul>
<script type="module">${LOG_JS}
const auth = { authorization: "Bearer " + token };
try {
  const me = await fetch(api + "/me", { headers: auth });
  const body = await me.json();
  line(me.ok, "<code>GET /me</code> → " + me.status + ": signed in as <b>" + body.data.name + "</b>");
  const key = crypto.randomUUID();
  const created = await fetch(api + "/project", { method: "POST", headers: { ...auth, "content-type": "application/json", "idempotency-key": key }, body: JSON.stringify({ workspaceId: q.get("workspace"), name: "Made in a browser" }) });
  const project = await created.json();
  line(created.ok, "<code>POST /project</code> with <code>Idempotency-Key</code> (preflighted) → " + created.status + ": project <b>" + project.data.name + "</b>");
  const read = await fetch(api + "/document/" + docId + "/content", { headers: auth });
  const etag = read.headers.get("etag");
  const content = await read.json();
  line(read.ok && !!etag, "<code>GET /document/…/content</code> → " + read.status + ", readable <code>ETag</code> " + etag + ", version " + content.data.version);
  const put = await fetch(api + "/document/" + docId + "/content", { method: "PUT", headers: { ...auth, "content-type": "application/json", "if-match": etag }, body: JSON.stringify({ blocks: content.data.blocks }) });
  line(put.ok, "<code>PUT /document/…/content</code> with <code>If-Match</code> → " + put.status);
  const stale = await fetch(api + "/document/" + docId + "/content", { method: "PUT", headers: { ...auth, "content-type": "application/json", "if-match": etag }, body: JSON.stringify({ blocks: [] }) });
  line(stale.status === 412, "the same <code>If-Match</code> again → " + stale.status + " (" + (await stale.json()).error + ")");
  const missing = await fetch(api + "/project/00000000000000000000000000", { headers: auth });
  const err = await missing.json();
  line(missing.status === 404 && err.error === "NotFoundError" && !!missing.headers.get("x-d1-bookmark"), "an error answer is readable too: " + missing.status + " " + err.error + ", <code>x-d1-bookmark</code> " + (missing.headers.get("x-d1-bookmark") ? "exposed" : "hidden"));
  // The typed client (client/, @workspace-edge/client) in the page: its POST carries an Idempotency-Key; its errors are ApiError.
  const { createApiClient, unwrap, ApiError } = window.Lib;
  const client = createApiClient({ baseUrl: api, token });
  const viaClient = await unwrap(client.POST("/project", { body: { workspaceId: q.get("workspace"), name: "Made with the typed client" } }));
  let clientError = null;
  try { await client.GET("/project/{id}", { params: { path: { id: "00000000000000000000000000" } } }); } catch (e) { clientError = e; }
  line(!!viaClient.data._id && clientError instanceof ApiError && clientError.status === 404, "the typed client in the page: project <b>" + viaClient.data.name + "</b>, then <code>ApiError</code> " + clientError?.status + " " + clientError?.error);
} catch (e) {
  line(false, "refused: " + e);
}
document.body.dataset.state = results.every((r) => r.ok) ? "done" : "failed";
window.results = results;
</script></body></html>`;

const REFUSED_HTML = `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Browser app on an unlisted origin</title>${STYLE}</head>
<body data-state="running"><h1>An unlisted origin</h1><p class="origin" id="where"></p><ul id="log"></ul>
<script type="module">${LOG_JS}
for (const [what, init, path] of [["GET /me with a token (preflighted)", { headers: { authorization: "Bearer " + token } }, "/me"], ["GET /health (a simple request)", {}, "/health"]]) {
  try {
    const res = await fetch(api + path, init);
    line(false, what + " was handed to the page: " + res.status);
  } catch (e) {
    line(true, what + " refused by the browser: " + e.name);
  }
}
document.body.dataset.state = results.every((r) => r.ok) ? "done" : "failed";
window.results = results;
</script></body></html>`;

// The collaboration page runs the editor's own stack: a Yjs document synced by y-websocket's WebsocketProvider, and
// the service's block mapping (src/services/collab/blocks.ts, readBlocks.ts), bundled for the browser by esbuild (pageLibrary below).
const COLLAB_HTML = `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Collaboration from another origin</title>${STYLE}
<script src="/lib.js"></script></head>
<body data-state="running"><h1>Editing a document together, from another origin</h1><p class="origin" id="where"></p><ul id="log"></ul>
<script type="module">${LOG_JS}
const { Y, WebsocketProvider, readBlocks, writeBlocks, FRAGMENT_NAME } = window.Lib;
const plain = (b) => (Array.isArray(b.content) ? b.content.map((c) => c.text ?? "").join("") : "");
try {
  const res = await fetch(api + "/document/" + docId + "/collab/ticket", { method: "POST", headers: { authorization: "Bearer " + token } });
  const ticket = (await res.json()).data.ticket;
  line(res.ok && !!ticket, "<code>POST /document/…/collab/ticket</code> → " + res.status + ", a single-use ticket");
  const doc = new Y.Doc();
  const provider = new WebsocketProvider(api.replace(/^http/, "ws") + "/document/" + docId, "collab", doc, { params: { ticket }, disableBc: true });
  window.provider = provider;
  await new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error("not synced within 10 s")), 10000);
    provider.on("sync", (synced) => synced && (clearTimeout(timer), resolve()));
  });
  line(true, "y-websocket connected with the ticket and synced (no token on the socket)");
  const fragment = doc.getXmlFragment(FRAGMENT_NAME);
  const blocks = readBlocks(fragment);
  const expected = q.get("expect");
  line(blocks.some((b) => plain(b) === expected), "the room's document: " + blocks.map((b) => "<b>" + plain(b) + "</b>").join(" · "));
  doc.transact(() => writeBlocks(fragment, [...blocks, { id: "browser-1", type: "paragraph", props: {}, content: [{ type: "text", text: q.get("edit"), styles: {} }], children: [] }]));
  line(readBlocks(fragment).length === blocks.length + 1, "added a paragraph in the page: <b>" + q.get("edit") + "</b>");
} catch (e) {
  line(false, "failed: " + e);
}
document.body.dataset.state = results.every((r) => r.ok) ? "done" : "failed";
window.results = results;
</script></body></html>`;

/** yjs, y-websocket's provider, the service's block mapping and the typed client as one browser script (window.Lib). */
async function pageLibrary() {
  const { build } = await import("esbuild");
  const out = await build({
    stdin: {
      contents: [
        'export * as Y from "yjs";',
        'export { WebsocketProvider } from "y-websocket";',
        'export { FRAGMENT_NAME, writeBlocks } from "./src/services/collab/blocks.ts";',
        'export { readBlocks } from "./src/services/collab/readBlocks.ts";',
        'export { ApiError, createApiClient, unwrap } from "./client/src/index.ts";',
      ].join("\n"),
      resolveDir: ROOT,
      loader: "ts",
    },
    bundle: true,
    format: "iife",
    globalName: "Lib",
    platform: "browser",
    target: "es2022",
    write: false,
    logLevel: "error",
  });
  return out.outputFiles[0].text;
}

/** A page server on 127.0.0.1 (its own port, so its own origin) serving the pages above. */
async function pageServer(script) {
  const pages = { "/app.html": APP_HTML, "/refused.html": REFUSED_HTML, "/collab.html": COLLAB_HTML };
  const server = http.createServer((req, res) => {
    const name = new URL(req.url, "http://x").pathname;
    if (name === "/lib.js") {
      res.writeHead(200, { "content-type": "text/javascript; charset=utf-8" });
      return res.end(script);
    }
    const page = pages[name];
    res.writeHead(page ? 200 : 404, { "content-type": page ? "text/html; charset=utf-8" : "text/plain" });
    res.end(page ?? "not found");
  });
  await new Promise((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    origin: `http://127.0.0.1:${server.address().port}`,
    close: () => new Promise((resolve) => server.close(resolve)),
  };
}

/** The allowed and the refused origin; `vars` go to the service (startApi). */
export async function startPageOrigins() {
  const script = await pageLibrary();
  const [allowed, refused] = await Promise.all([pageServer(script), pageServer(script)]);
  return {
    allowed: allowed.origin,
    refused: refused.origin,
    vars: { CORS_ALLOWED_ORIGINS: allowed.origin },
    close: () => Promise.all([allowed.close(), refused.close()]),
  };
}

const TEXT = "Drafted together across origins";
const EDIT = "Added from a page on another origin";

async function seedCors(api, seed) {
  const call = (method, p, body) => api.call(method, p, { token: seed.token, body });
  const me = await call("GET", "/me");
  const project = (await call("POST", "/project", { workspaceId: seed.workspaceId, name: "Cross-origin" })).data;
  const doc = (await call("POST", "/document", { projectId: project._id, name: "Shared draft", type: "DOCUMENT" }))
    .data;
  await call("PUT", `/document/${doc._id}/content`, {
    blocks: [
      { id: "c1", type: "paragraph", props: {}, content: [{ type: "text", text: TEXT, styles: {} }], children: [] },
    ],
  });
  return { name: me.data.name, docId: doc._id };
}

async function pageResults(page, url, { consoleLines } = {}) {
  if (consoleLines) page.on("console", (m) => consoleLines.push(m.text()));
  await page.goto(url, { waitUntil: "load" });
  await page.waitForFunction(() => document.body.dataset.state !== "running", { timeout: 20_000 });
  return {
    state: await page.evaluate(() => document.body.dataset.state),
    results: await page.evaluate(() => window.results),
  };
}

const query = (base, seed, extra = {}) =>
  new URLSearchParams({ api: base, token: seed.token, workspace: seed.workspaceId, ...extra }).toString();

export const corsChecks = [
  {
    name: "CORS: a page on a listed origin calls the API (preflighted writes, ETag/If-Match, a readable error, the typed client); screenshot",
    async run({ base, api, seed, origins, newPage }) {
      const s = await seedCors(api, seed);
      const page = await newPage();
      const where =
        "This page is served from a second local origin, listed in CORS_ALLOWED_ORIGINS; the API runs on its own.";
      const { state, results } = await pageResults(
        page,
        `${origins.allowed}/app.html?${query(base, seed, { doc: s.docId, where })}`,
      );
      assert(state === "done", `the allowed page's calls: ${JSON.stringify(results)}`);
      assert(
        results.length === 7 && results[0].text.includes(s.name),
        `the page shows the caller: ${JSON.stringify(results)}`,
      );
      await page.setViewport({ width: 1000, height: 520 });
      await page.screenshot({ path: CORS_SCREENSHOT });
    },
  },
  {
    name: "CORS: a page on an unlisted origin is refused by the browser, preflighted or simple",
    async run({ base, seed, origins, newPage }) {
      const page = await newPage();
      const consoleLines = [];
      const where = "This page is served from a third local origin, not listed in CORS_ALLOWED_ORIGINS.";
      const { state, results } = await pageResults(
        page,
        `${origins.refused}/refused.html?${query(base, seed, { where })}`,
        { consoleLines },
      );
      assert(state === "done", `the unlisted page's calls: ${JSON.stringify(results)}`);
      assert(
        consoleLines.some((l) => /blocked by CORS policy/i.test(l) && l.includes(origins.refused)),
        `Chromium reports the CORS refusal: ${consoleLines.join(" | ")}`,
      );
    },
  },
  {
    name: "CORS: a page on a listed origin opens a collaboration room through the ticket flow (yjs + y-websocket) and edits; the API reads the edit",
    async run({ base, api, seed, origins, newPage }) {
      const s = await seedCors(api, seed);
      const page = await newPage();
      const where = "This page is served from a second local origin, listed in CORS_ALLOWED_ORIGINS.";
      const { state, results } = await pageResults(
        page,
        `${origins.allowed}/collab.html?${query(base, seed, { doc: s.docId, expect: TEXT, edit: EDIT, where })}`,
      );
      assert(state === "done", `the collaboration page: ${JSON.stringify(results)}`);
      // The room writes its document back as content at most every 2 s: the page's paragraph reaches the API.
      let texts = [];
      for (let i = 0; i < 40; i++) {
        const content = await api.call("GET", `/document/${s.docId}/content`, { token: seed.token });
        texts = content.data.blocks.map((b) => (b.content ?? []).map((c) => c.text ?? "").join(""));
        if (texts.includes(EDIT)) break;
        await new Promise((r) => setTimeout(r, 250));
      }
      assert(
        texts.includes(TEXT) && texts.includes(EDIT),
        `the API's content after the page's edit: ${JSON.stringify(texts)}`,
      );
      await page.setViewport({ width: 1000, height: 420 });
      await page.screenshot({ path: COLLAB_SCREENSHOT });
      await page.evaluate(() => window.provider.destroy());
    },
  },
];
