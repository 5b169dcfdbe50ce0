// The reader site in a real browser (docs/api-guide.md › Automations, published portals, collaborative editing): Debian's Chromium driven by puppeteer-core against the Worker
// served by wrangler dev (as npm start serves it). Seeds portals through the API, follows the navigation, logs in
// through the password form, checks accessibility with axe-core, and saves docs/portal-screenshot.png. CORS from
// pages on other local origins (the service is started with one of them allowed): scripts/browser-cors.mjs.
//
// Run alone with `node scripts/browser-test.mjs`; `npm test` runs it through runBrowserTests(). Page checks are the
// entries of `checks` below: each gets a fresh page from ctx.newPage() and throws to fail; add one to extend.
import { mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { ROOT } from "./lib/proc.mjs";
import { importTool, toolPath } from "./lib/tools.mjs";
import { CHROMIUM, chromiumArgs, ensureChromium } from "./lib/chromium.mjs";
import { ADMIN_TOKEN, startApi } from "./bench/lib.mjs";
import { CORS_SCREENSHOT, corsChecks, startPageOrigins } from "./browser-cors.mjs";

export const SCREENSHOT = path.join(ROOT, "docs", "portal-screenshot.png");

function assert(cond, message) {
  if (!cond) throw new Error(message);
}

const text = (s) => [{ type: "text", text: s, styles: {} }];
const para = (id, s) => ({ id, type: "paragraph", props: {}, content: text(s), children: [] });

/** Two portals through the public API: a public handbook and a password-protected one. */
async function seed(api) {
  const reg = await api.call("POST", "/admin/users", {
    token: ADMIN_TOKEN,
    body: { email: `browser-${Date.now()}@example.com`, name: "Browser Test" },
  });
  const token = reg.data.token.token;
  const workspaceId = reg.data.workspace._id;
  const call = (method, p, body) => api.call(method, p, { token, body });
  const stamp = Date.now().toString(36);

  async function portal(name, slug, password) {
    const project = (
      await call("POST", "/project", {
        workspaceId,
        name,
        description: `${name}: how we work, in one place.`,
        emoji: { unified: "1f4d8", emojiStyle: "apple" },
      })
    ).data;
    const doc = async (n, type, parentId) =>
      (await call("POST", "/document", { projectId: project._id, name: n, type, ...(parentId && { parentId }) })).data
        ._id;
    const folder = await doc("Policies", "FOLDER");
    const welcome = await doc("Welcome", "DOCUMENT");
    const leave = await doc("Leave policy", "DOCUMENT", folder);
    const remote = await doc("Remote work", "DOCUMENT", folder);
    await call("PUT", `/document/${welcome}/content`, {
      blocks: [
        { id: "w1", type: "heading", props: { level: 1 }, content: text("Welcome aboard"), children: [] },
        para("w2", "This handbook collects the policies every team member should know."),
        { id: "w3", type: "bulletListItem", props: {}, content: text("Read the leave policy"), children: [] },
        { id: "w4", type: "bulletListItem", props: {}, content: text("Set up remote work"), children: [] },
      ],
    });
    await call("PUT", `/document/${leave}/content`, {
      blocks: [
        { id: "l1", type: "heading", props: { level: 1 }, content: text("Annual leave"), children: [] },
        {
          id: "l2",
          type: "paragraph",
          props: {},
          content: [
            { type: "text", text: "Everyone gets ", styles: {} },
            { type: "text", text: "25 days", styles: { bold: true } },
            { type: "text", text: " a year. Ask ", styles: {} },
            { type: "link", href: "mailto:people@example.com", content: text("the people team") },
            { type: "text", text: " for anything unusual.", styles: {} },
          ],
          children: [],
        },
        { id: "l3", type: "heading", props: { level: 2 }, content: text("Booking time off"), children: [] },
        { id: "l4", type: "numberedListItem", props: {}, content: text("Tell your team a week ahead"), children: [] },
        { id: "l5", type: "numberedListItem", props: {}, content: text("Book it in the calendar"), children: [] },
        {
          id: "l6",
          type: "checkListItem",
          props: { checked: true },
          content: text("Handover notes written"),
          children: [],
        },
        {
          id: "l7",
          type: "checkListItem",
          props: { checked: false },
          content: text("Out-of-office reply set"),
          children: [],
        },
        { id: "l8", type: "quote", props: {}, content: text("Rest is part of the work."), children: [] },
        {
          id: "l9",
          type: "table",
          props: {},
          content: {
            type: "tableContent",
            headerRows: 1,
            rows: [
              { cells: [text("Years"), text("Days")] },
              { cells: [text("0–4"), text("25")] },
              { cells: [text("5+"), text("28")] },
            ],
          },
          children: [],
        },
        {
          id: "l10",
          type: "codeBlock",
          props: { language: "text" },
          content: text("leave-request: 2026-08-01 .. 2026-08-14"),
          children: [],
        },
      ],
    });
    await call("PUT", `/document/${remote}/content`, {
      blocks: [para("r1", "Work from wherever you do your best work.")],
    });
    for (const id of [folder, welcome, leave, remote]) await call("POST", `/document/${id}/publish`, {});
    await call("PUT", `/project/${project._id}/branding`, {
      company: { name: "Acme Handbook", logo: "", url: "" },
      callToAction: {
        enabled: true,
        icon: { name: "mail", color: "#fff" },
        text: "Contact us",
        url: "https://example.com/contact",
      },
      socials: [{ platform: "x", handle: "acme" }],
    });
    await call("POST", `/project/${project._id}/publish`, { slug, homepage: welcome, ...(password && { password }) });
    return { projectId: project._id, slug, welcome, leave, remote, folder };
  }

  const open = await portal("Acme Handbook", `handbook-${stamp}`);
  const locked = await portal("Board papers", `board-${stamp}`, "correct horse battery staple");
  return { token, workspaceId, open, locked, password: "correct horse battery staple" };
}

/** axe-core on the page as it is; throws listing serious or critical violations. */
async function axeCheck(page, label) {
  await page.addScriptTag({ path: toolPath("axe-core/axe.min.js") });
  const result = await page.evaluate(async () => {
    // eslint-disable-next-line no-undef
    const r = await axe.run(document, { resultTypes: ["violations"] });
    return r.violations.map((v) => ({ id: v.id, impact: v.impact, help: v.help, nodes: v.nodes.length }));
  });
  const bad = result.filter((v) => v.impact === "serious" || v.impact === "critical");
  assert(bad.length === 0, `${label}: axe found serious/critical violations: ${JSON.stringify(bad)}`);
  return result;
}

export const checks = [
  // CORS from pages on other origins (scripts/browser-cors.mjs).
  ...corsChecks,
  {
    name: "public portal: home, navigation to a document, styles, no CSP errors, axe, screenshot",
    async run({ base, seed: s, newPage }) {
      const page = await newPage();
      const problems = [];
      page.on("console", (m) => m.type() === "error" && problems.push(m.text()));
      page.on("pageerror", (e) => problems.push(String(e)));
      const res = await page.goto(`${base}/site/${s.open.slug}`, { waitUntil: "load" });
      assert(res.status() === 200, `home answered ${res.status()}`);
      assert((await page.title()).includes("Acme Handbook"), `home title: ${await page.title()}`);
      assert(
        (await page.$eval("main h1", (h) => h.textContent)).includes("Welcome"),
        "home shows the homepage document",
      );
      const grid = await page.$eval(".layout", (el) => getComputedStyle(el).display);
      assert(grid === "grid", `the stylesheet is not applied (layout display: ${grid})`);
      await Promise.all([
        page.waitForNavigation({ waitUntil: "load" }),
        page.click(`nav a[href="/site/${s.open.slug}/${s.open.leave}"]`),
      ]);
      assert(page.url().endsWith(`/site/${s.open.slug}/${s.open.leave}`), `navigation went to ${page.url()}`);
      assert(
        (await page.$eval("main h1", (h) => h.textContent)) === "Leave policy",
        "the document page shows its title",
      );
      assert((await page.$$eval("main table th", (th) => th.length)) === 2, "the table renders with its header row");
      assert(
        (await page.$eval('nav a[aria-current="page"]', (a) => a.textContent)) === "Leave policy",
        "navigation marks the current page",
      );
      assert(problems.length === 0, `console errors (CSP or script): ${problems.join(" | ")}`);
      await page.setViewport({ width: 1200, height: 900 });
      await page.screenshot({ path: SCREENSHOT, fullPage: false });
      const axePage = await newPage({ bypassCSP: true });
      for (const p of [
        `/site/${s.open.slug}`,
        `/site/${s.open.slug}/${s.open.leave}`,
        `/site/${s.open.slug}/${s.open.folder}`,
      ]) {
        await axePage.goto(`${base}${p}`, { waitUntil: "load" });
        await axeCheck(axePage, p);
      }
    },
  },
  {
    name: "reader site works with JavaScript off",
    async run({ base, seed: s, newPage }) {
      const page = await newPage({ javaScript: false });
      await page.goto(`${base}/site/${s.open.slug}/${s.open.remote}`, { waitUntil: "load" });
      assert((await page.content()).includes("Work from wherever"), "content rendered without JavaScript");
    },
  },
  {
    // docs/api-guide.md › Search: the search box is a plain GET form, so it works with JavaScript off.
    name: "reader site search: the box on a page submits without JavaScript, results link to the page, axe",
    async run({ base, seed: s, newPage }) {
      const page = await newPage({ javaScript: false });
      await page.goto(`${base}/site/${s.open.slug}/${s.open.remote}`, { waitUntil: "load" });
      await page.type("#site-search-q", "annu* leave");
      const [res] = await Promise.all([
        page.waitForNavigation({ waitUntil: "load" }),
        page.click('form.site-search button[type="submit"]'),
      ]);
      assert(res.status() === 200, `the search page answered ${res.status()}`);
      assert(page.url().startsWith(`${base}/site/${s.open.slug}/search?q=`), `the form went to ${page.url()}`);
      const hits = await page.$$eval("ol.search-results a", (as) => as.map((a) => a.getAttribute("href")));
      assert(hits[0] === `/site/${s.open.slug}/${s.open.leave}`, `search results: ${JSON.stringify(hits)}`);
      assert((await page.$$eval("ol.search-results mark", (m) => m.length)) > 0, "matches are highlighted");
      assert((await page.$eval("#site-search-q", (i) => i.value)) === "annu* leave", "the box keeps the query");
      const axePage = await newPage({ bypassCSP: true });
      await axePage.goto(`${base}/site/${s.open.slug}/search?q=leave`, { waitUntil: "load" });
      await axeCheck(axePage, "search results");
      await axePage.goto(`${base}/site/${s.open.slug}/search?q=nothingmatchesthis`, { waitUntil: "load" });
      await axeCheck(axePage, "search without results");
    },
  },
  {
    name: "protected portal: password form, wrong password, login, then the page; axe on the form",
    async run({ base, seed: s, newPage }) {
      const page = await newPage();
      const target = `${base}/site/${s.locked.slug}/${s.locked.leave}`;
      let res = await page.goto(target, { waitUntil: "load" });
      assert(res.status() === 401, `protected page without a cookie answered ${res.status()}`);
      assert(await page.$('form input[type="password"]'), "the password form is shown");
      await page.type("#password", "wrong password");
      [res] = await Promise.all([
        page.waitForNavigation({ waitUntil: "load" }),
        page.click('form button[type="submit"]'),
      ]);
      assert(res.status() === 401, `a wrong password answered ${res.status()}`);
      assert((await page.content()).includes("not correct"), "a wrong password says so");
      await page.type("#password", s.password);
      [res] = await Promise.all([
        page.waitForNavigation({ waitUntil: "load" }),
        page.click('form button[type="submit"]'),
      ]);
      assert(page.url() === target, `after login the browser is at ${page.url()}, not ${target}`);
      assert(res.status() === 200, `after login the page answered ${res.status()}`);
      assert(
        (await page.$eval("main h1", (h) => h.textContent)) === "Leave policy",
        "the protected document is shown after login",
      );
      // The cookie opens the rest of the portal, and only it.
      await page.goto(`${base}/site/${s.locked.slug}/${s.locked.remote}`, { waitUntil: "load" });
      assert((await page.content()).includes("Work from wherever"), "the cookie opens other pages of the portal");
      const cookies = await page.browserContext().cookies();
      const c = cookies.find((x) => x.name === "portal_token");
      assert(
        c && c.httpOnly && c.secure && c.sameSite === "Lax" && c.path === `/site/${s.locked.slug}`,
        `cookie attributes: ${JSON.stringify(c)}`,
      );
      const axePage = await newPage({ bypassCSP: true });
      await axePage.goto(target, { waitUntil: "load" });
      await axeCheck(axePage, "password form");
    },
  },
  {
    // docs/api-guide.md › Discovery: /docs works offline. Every request to another origin is refused, so a page that needed a CDN,
    // web fonts or telemetry would stay blank or show up in `elsewhere`.
    name: "/docs renders the API reference with every other origin blocked, without CSP violations",
    async run({ base, newPage }) {
      const page = await newPage();
      const origin = new URL(base).origin;
      const elsewhere = [];
      const problems = [];
      await page.setRequestInterception(true);
      page.on("request", (req) => {
        const url = req.url();
        if (url.startsWith("data:") || url.startsWith("blob:") || new URL(url).origin === origin) return req.continue();
        elsewhere.push(url);
        return req.abort("blockedbyclient");
      });
      page.on("console", (m) => /Content Security Policy|Refused to/i.test(m.text()) && problems.push(m.text()));
      page.on("pageerror", (e) => problems.push(String(e)));
      const res = await page.goto(`${base}/docs`, { waitUntil: "networkidle0", timeout: 60_000 });
      assert(res.status() === 200, `/docs answered ${res.status()}`);
      // Rendered from /openapi.json: the title and an operation's summary are on the page.
      await page.waitForFunction(
        () =>
          document.body.innerText.includes("Collaborative Workspace Service") &&
          document.body.innerText.includes("Issue a personal access token"),
        { timeout: 60_000 },
      );
      assert(elsewhere.length === 0, `/docs asked for other origins: ${[...new Set(elsewhere)].join(", ")}`);
      assert(problems.length === 0, `/docs console errors (CSP or script): ${problems.join(" | ")}`);
    },
  },
];

/** Starts the service, seeds, runs every check (or those whose name includes `only`); throws when any fails. */
export async function runBrowserTests({ only, log = console.log } = {}) {
  const problem = ensureChromium({ log });
  if (problem) throw new Error(`the browser test needs Chromium: ${problem}`);
  // Two local page servers: browser apps on other origins, the first listed in CORS_ALLOWED_ORIGINS.
  const origins = await startPageOrigins();
  const api = await startApi({ vars: origins.vars });
  const userDataDir = mkdtempSync(path.join(os.tmpdir(), "cws-chromium-"));
  let browser;
  const failures = [];
  try {
    const s = await seed(api);
    const puppeteer = await importTool("puppeteer-core"); // tools/node_modules (scripts/lib/tools.mjs)
    browser = await puppeteer.launch({ executablePath: CHROMIUM, headless: true, args: chromiumArgs(userDataDir) });
    for (const check of checks.filter((c) => !only || c.name.includes(only))) {
      const context = await browser.createBrowserContext();
      const newPage = async ({ bypassCSP = false, javaScript = true } = {}) => {
        const page = await context.newPage();
        if (bypassCSP) await page.setBypassCSP(true);
        if (!javaScript) await page.setJavaScriptEnabled(false);
        page.setDefaultTimeout(20_000);
        return page;
      };
      const t0 = Date.now();
      try {
        await check.run({ base: api.url, api, seed: s, browser, newPage, origins });
        log(`  ✓ ${check.name} (${Date.now() - t0} ms)`);
      } catch (err) {
        failures.push(`${check.name}: ${err.message}`);
        log(`  ✗ ${check.name}\n    ${err.message}`);
      } finally {
        await context.close();
      }
    }
  } finally {
    await browser?.close();
    await api.stop();
    await origins.close();
    rmSync(userDataDir, { recursive: true, force: true });
  }
  if (failures.length) throw new Error(`browser test failed:\n${failures.join("\n")}`);
  log(`  screenshots: ${path.relative(ROOT, SCREENSHOT)}, ${path.relative(ROOT, CORS_SCREENSHOT)}`);
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  try {
    await runBrowserTests({ only: process.argv[2] });
    process.exit(0);
  } catch (err) {
    console.error(err.message);
    process.exit(1);
  }
}
