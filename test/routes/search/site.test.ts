/**
 * Search on the reader site (docs/api-guide.md › Search): /site/{slug}/search?q= over a portal's published pages
 * only, escaped like every page, cached by portal version, behind the same password as the other pages.
 */
import { SELF } from "cloudflare:test";
import { beforeAll, describe, expect, it } from "vitest";
import { BASE, ok, seedTenant, type Tenant } from "../../support/harness";
import { word } from "../../support/search";

let t: Tenant;
beforeAll(async () => {
  t = await seedTenant();
});

let n = 0;
const uniqueSlug = () => `s-${Date.now().toString(36)}-${++n}-${Math.random().toString(36).slice(2, 6)}`;
const para = (text: string) => ({
  id: crypto.randomUUID(),
  type: "paragraph",
  props: {},
  content: [{ type: "text", text, styles: {} }],
  children: [],
});

async function page(path: string, init: RequestInit = {}) {
  const res = await SELF.fetch(`${BASE}${path}`, { redirect: "manual", ...init });
  return { status: res.status, headers: res.headers, text: await res.text() };
}

/** A project with a published page, an unpublished one and a published-then-deleted one, all containing `w`. */
async function seedPortal(w: string, opts: { password?: string } = {}) {
  const tok = t.owner.token;
  const project = (await ok("POST", "/project", { token: tok, body: { workspaceId: t.workspaceId, name: "Handbook" } }))
    .data;
  const mk = async (name: string) =>
    (await ok("POST", "/document", { token: tok, body: { projectId: project._id, name, type: "DOCUMENT" } })).data
      ._id as string;
  const shown = await mk(`Leave <policy> ${w}`);
  const hidden = await mk(`Draft ${w}`);
  const gone = await mk(`Gone ${w}`);
  await ok("PUT", `/document/${shown}/content`, {
    token: tok,
    body: { blocks: [para(`Everyone gets <script>alert(1)</script> days of ${w}body leave.`)] },
  });
  await ok("PUT", `/document/${hidden}/content`, { token: tok, body: { blocks: [para(`secret ${w}body salaries`)] } });
  for (const id of [shown, gone]) await ok("POST", `/document/${id}/publish`, { token: tok, body: {} });
  await ok("DELETE", `/document/${gone}`, { token: tok });
  const slug = uniqueSlug();
  await ok("POST", `/project/${project._id}/publish`, {
    token: tok,
    body: { slug, ...(opts.password && { password: opts.password }) },
  });
  return { projectId: project._id as string, shown, hidden, gone, slug };
}

describe("reader site search", () => {
  it("finds published pages only, with escaped snippets, and a search box on every page", async () => {
    const w = word("site");
    const p = await seedPortal(w);
    const res = await page(`/site/${p.slug}/search?q=${encodeURIComponent(`${w}body`)}`);
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toContain("text/html");
    expect(res.headers.get("content-security-policy")).toContain("default-src 'none'");
    expect(res.text).toContain(`href="/site/${p.slug}/${p.shown}"`);
    expect(res.text).not.toContain(p.hidden);
    expect(res.text).not.toContain("salaries");
    expect(res.text).toContain(`<mark>${w}body</mark>`);
    expect(res.text).toContain("&lt;script&gt;alert(1)&lt;/script&gt;");
    expect(res.text).not.toContain("<script>");
    expect(res.text).toContain("Leave &lt;policy&gt;");
    // The title query finds the page; the deleted and unpublished ones stay out.
    const byTitle = await page(`/site/${p.slug}/search?q=${w}`);
    expect(byTitle.text).toContain(p.shown);
    expect(byTitle.text).not.toContain(p.gone);
    expect(byTitle.text).toContain("1 page match");
    // Every page carries the plain GET form.
    for (const path of [`/site/${p.slug}`, `/site/${p.slug}/${p.shown}`, `/site/${p.slug}/search`]) {
      const html = (await page(path)).text;
      expect(html).toContain(`<form class="site-search" role="search" method="get" action="/site/${p.slug}/search">`);
      expect(html).toContain('name="q"');
    }
    // The query is echoed escaped in the box and the title.
    const echoed = await page(`/site/${p.slug}/search?q=${encodeURIComponent('"><img src=x onerror=alert(1)>')}`);
    expect(echoed.status).toBe(200);
    expect(echoed.text).not.toContain("<img src=x");
  });

  it("is cached by portal version like other pages: 304 on a match, fresh results after an edit", async () => {
    const w = word("cache");
    const p = await seedPortal(w);
    const path = `/site/${p.slug}/search?q=${w}body`;
    const first = await page(path);
    const etag = first.headers.get("etag")!;
    expect(etag).toMatch(/^"/);
    expect(first.headers.get("cache-control")).toContain("public");
    expect((await page(path, { headers: { "if-none-match": etag } })).status).toBe(304);
    // Another query is another page.
    expect((await page(`/site/${p.slug}/search?q=other`)).headers.get("etag")).not.toBe(etag);
    await ok("PUT", `/document/${p.shown}/content`, {
      token: t.owner.token,
      body: { blocks: [para("nothing here any more")] },
    });
    const after = await page(path, { headers: { "if-none-match": etag } });
    expect(after.status).toBe(200);
    expect(after.text).toContain("No page matches");
  });

  it("never finds comments, even on a published page (portals never show them)", async () => {
    const w = word("remark");
    const p = await seedPortal(w);
    const comment = (
      await ok("POST", `/document/${p.shown}/comment`, {
        token: t.owner.token,
        body: { body: `internal ${w}note about the policy` },
      })
    ).data;
    // Indexed for the API's readers…
    const api = await ok("GET", "/search", { token: t.owner.token, query: { q: `${w}note` } });
    expect(api.data.map((h: any) => h._id)).toEqual([comment._id]);
    // …but not on the portal, whose search reads published pages only.
    const res = await page(`/site/${p.slug}/search?q=${w}note`);
    expect(res.status).toBe(200);
    expect(res.text).toContain("No page matches");
    expect(res.text).not.toContain("internal");
    expect(res.text).not.toContain(comment._id);
  });

  it("answers an unreadable query with a plain message, not an error", async () => {
    const p = await seedPortal(word("bad"));
    const res = await page(`/site/${p.slug}/search?q=${encodeURIComponent('"unclosed')}`);
    expect(res.status).toBe(200);
    expect(res.text).toContain("never closed");
  });

  it("needs the portal's login when it is password-protected", async () => {
    const w = word("locked");
    const p = await seedPortal(w, { password: "open sesame" });
    const gate = await page(`/site/${p.slug}/search?q=${w}`);
    expect(gate.status).toBe(401);
    expect(gate.text).not.toContain(p.shown);
    expect(gate.headers.get("cache-control")).toContain("no-store");
    const login = await page(`/site/${p.slug}/login`, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded", "cf-connecting-ip": "10.9.0.1" },
      body: new URLSearchParams({ password: "open sesame", next: `/site/${p.slug}` }).toString(),
    });
    expect(login.status).toBe(303);
    const cookie = login.headers.get("set-cookie")!.split(";")[0]!;
    const opened = await page(`/site/${p.slug}/search?q=${w}`, { headers: { cookie } });
    expect(opened.status).toBe(200);
    expect(opened.text).toContain(p.shown);
    expect(opened.headers.get("cache-control")).toContain("no-store");
  });
});
