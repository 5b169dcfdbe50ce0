// Tests against a running service, started the way `npm start` starts it (local D1 migrations, wrangler dev with the
// Worker's static assets), on a fresh local state:
// 1. the typed client (client/) drives the README's tour (client/test/tour.ts), plus its retry/idempotency rules;
// 2. /docs renders in Chromium with every request to another origin blocked (API.md §16: works offline).
// Run by npm test; alone: node scripts/service-test.mjs
import { existsSync } from "node:fs";
import { ADMIN_TOKEN, startApi } from "./bench/lib.mjs";

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
  try {
    for (const s of await tour(api.url, ADMIN_TOKEN)) results.push(`client tour: ${s}`);
  } catch (err) {
    fail("client tour", err);
  }
  try {
    results.push(...(await docsOffline(api.url)));
  } catch (err) {
    fail("/docs offline in a browser", err);
  }
} finally {
  await api.stop();
}
for (const r of results) console.log(`✓ ${r}`);
process.exit(process.exitCode ?? 0);

async function docsOffline(base) {
  const executablePath = ["/usr/bin/chromium", "/usr/bin/chromium-browser", process.env.CHROME_PATH].find((p) => p && existsSync(p));
  if (!executablePath) throw new Error("no Chromium found (/usr/bin/chromium); set CHROME_PATH");
  const { default: puppeteer } = await import("puppeteer-core");
  const browser = await puppeteer.launch({ executablePath, headless: true, args: ["--no-sandbox", "--disable-dev-shm-usage"] });
  try {
    const page = await browser.newPage();
    const origin = new URL(base).origin;
    const blocked = [];
    const violations = [];
    await page.setRequestInterception(true);
    page.on("request", (req) => {
      const url = req.url();
      if (url.startsWith("data:") || url.startsWith("blob:") || new URL(url).origin === origin) return req.continue();
      blocked.push(url);
      return req.abort("blockedbyclient");
    });
    page.on("console", (msg) => {
      if (/Content Security Policy|Refused to/i.test(msg.text())) violations.push(msg.text());
    });
    const res = await page.goto(`${base}/docs`, { waitUntil: "networkidle0", timeout: 60_000 });
    if (res?.status() !== 200) throw new Error(`/docs answered ${res?.status()}`);
    // Rendered: the document's title and an operation summary appear on the page.
    await page.waitForFunction(() => document.body.innerText.includes("Collaborative Workspace Service") && document.body.innerText.includes("Issue a personal access token"), { timeout: 60_000 });
    if (blocked.length) throw new Error(`/docs asked for other origins: ${[...new Set(blocked)].join(", ")}`);
    if (violations.length) throw new Error(`Content-Security-Policy violations: ${violations.join(" | ")}`);
    return ["/docs renders offline (no request left the service, no CSP violation)"];
  } finally {
    await browser.close();
  }
}
