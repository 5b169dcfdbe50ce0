/**
 * Portals readable by machines (docs/api-guide.md › Automations, published portals, collaborative editing):
 * `/site/{slug}/llms.txt` and `/site/{slug}/{page}.md`, behind the same password, expiry and caching as the HTML
 * pages, and listed in the sitemap — through the real Worker in workerd.
 */
import { SELF } from "cloudflare:test";
import { beforeAll, describe, expect, it } from "vitest";
import { BASE, ok, seedTenant, type Tenant } from "../../support/harness";

let t: Tenant;
beforeAll(async () => {
  t = await seedTenant();
});

let n = 0;
const uniqueSlug = () => `m-${Date.now().toString(36)}-${++n}-${Math.random().toString(36).slice(2, 6)}`;

async function seed(opts: { password?: string; expiresAt?: number; allowIndexing?: boolean } = {}) {
  const token = t.owner.token;
  const project = (
    await ok("POST", "/project", {
      token,
      body: { workspaceId: t.workspaceId, name: "Handbook [v2]", description: "Our team handbook" },
    })
  ).data;
  const mk = async (name: string, type: "FOLDER" | "DOCUMENT", parentId?: string) =>
    (
      await ok("POST", "/document", {
        token,
        body: { projectId: project._id, name, type, ...(parentId && { parentId }) },
      })
    ).data._id as string;
  const folder = await mk("Policies", "FOLDER");
  const doc = await mk("Leave policy", "DOCUMENT", folder);
  const hidden = await mk("Draft salaries", "DOCUMENT", folder);
  await ok("PUT", `/document/${doc}/content`, {
    token,
    body: {
      blocks: [
        {
          id: "h",
          type: "heading",
          props: { level: 2 },
          content: [{ type: "text", text: "Annual leave", styles: {} }],
        },
        { id: "p", type: "paragraph", content: [{ type: "text", text: "Take 25 days.", styles: { bold: true } }] },
      ],
    },
  });
  for (const id of [folder, doc]) await ok("POST", `/document/${id}/publish`, { token, body: {} });
  const slug = uniqueSlug();
  await ok("POST", `/project/${project._id}/publish`, {
    token,
    body: {
      slug,
      ...(opts.password && { password: opts.password }),
      ...(opts.expiresAt && { expiresAt: opts.expiresAt }),
      ...(opts.allowIndexing !== undefined && { allowIndexing: opts.allowIndexing }),
    },
  });
  return { projectId: project._id as string, folder, doc, hidden, slug };
}

async function get(path: string, init: RequestInit = {}) {
  const res = await SELF.fetch(`${BASE}${path}`, { redirect: "manual", ...init });
  return { status: res.status, headers: res.headers, text: await res.text() };
}

describe("llms.txt and page Markdown", () => {
  it("lists the portal's title, summary and published pages as Markdown links, and serves each page as Markdown", async () => {
    const p = await seed();
    const llms = await get(`/site/${p.slug}/llms.txt`);
    expect(llms.status).toBe(200);
    expect(llms.headers.get("content-type")).toMatch(/^text\/plain/);
    expect(llms.text).toMatch(/^# Handbook \\\[v2\\\]\n\n> Our team handbook\n\n## Pages\n/);
    expect(llms.text).toContain(`- [Policies](${BASE}/site/${p.slug}/${p.folder}.md)`);
    expect(llms.text).toContain(`  - [Leave policy](${BASE}/site/${p.slug}/${p.doc}.md)`);
    expect(llms.text).not.toContain(p.hidden);

    const md = await get(`/site/${p.slug}/${p.doc}.md`);
    expect(md.status).toBe(200);
    expect(md.headers.get("content-type")).toMatch(/^text\/markdown/);
    expect(md.text).toBe("# Leave policy\n\n## Annual leave\n\n**Take 25 days.**\n");
    const folder = await get(`/site/${p.slug}/${p.folder}.md`);
    expect(folder.text).toContain(`- [Leave policy](${BASE}/site/${p.slug}/${p.doc}.md)`);
    // An unpublished page has no Markdown copy either.
    expect((await get(`/site/${p.slug}/${p.hidden}.md`)).status).toBe(404);
    expect((await get(`/site/no-such-portal-${n}/llms.txt`)).status).toBe(404);
  });

  it("caches like the pages: public Cache-Control, strong ETag, 304, miss then hit", async () => {
    const p = await seed();
    for (const path of [`/site/${p.slug}/llms.txt`, `/site/${p.slug}/${p.doc}.md`]) {
      const first = await get(path);
      expect(first.headers.get("cache-control")).toBe("public, max-age=60, stale-while-revalidate=600");
      const etag = first.headers.get("etag")!;
      expect(etag).toMatch(/^"[^"]+"$/);
      expect(first.headers.get("x-portal-cache")).toBe("miss");
      const again = await get(path);
      expect(again.headers.get("x-portal-cache")).toBe("hit");
      expect(again.text).toBe(first.text);
      expect((await get(path, { headers: { "if-none-match": etag } })).status).toBe(304);
    }
    // The HTML page and its Markdown copy are different cache entries.
    const html = await get(`/site/${p.slug}/${p.doc}`);
    expect(html.headers.get("content-type")).toMatch(/^text\/html/);
    expect(html.headers.get("etag")).not.toBe((await get(`/site/${p.slug}/${p.doc}.md`)).headers.get("etag"));
  });

  it("keeps protected portals behind their password and disabled or expired ones closed", async () => {
    const p = await seed({ password: "machines too" });
    for (const path of [`/site/${p.slug}/llms.txt`, `/site/${p.slug}/${p.doc}.md`]) {
      const gate = await get(path);
      expect(gate.status, path).toBe(401);
      expect(gate.text).not.toContain("Annual leave");
      expect(gate.text).not.toContain("Leave policy");
    }
    const login = await get(`/site/${p.slug}/login`, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded", "cf-connecting-ip": "10.39.0.1" },
      body: new URLSearchParams({ password: "machines too", next: `/site/${p.slug}/${p.doc}.md` }).toString(),
    });
    expect(login.status).toBe(303);
    expect(login.headers.get("location")).toBe(`/site/${p.slug}/${p.doc}.md`);
    const cookie = login.headers.get("set-cookie")!.split(";")[0]!;
    const md = await get(`/site/${p.slug}/${p.doc}.md`, { headers: { cookie } });
    expect(md.status).toBe(200);
    expect(md.text).toContain("Annual leave");
    expect(md.headers.get("cache-control")).toBe("private, no-store");
    expect((await get(`/site/${p.slug}/llms.txt`, { headers: { cookie } })).status).toBe(200);

    const disabled = await seed();
    await ok("PATCH", `/project/${disabled.projectId}/publish/${disabled.slug}`, {
      token: t.owner.token,
      body: { disabled: true },
    });
    expect((await get(`/site/${disabled.slug}/llms.txt`)).status).toBe(403);
    expect((await get(`/site/${disabled.slug}/${disabled.doc}.md`)).status).toBe(403);
  });

  it("lists llms.txt and every page's Markdown copy in the sitemap", async () => {
    const p = await seed({ allowIndexing: true });
    const map = await get(`/site/${p.slug}/sitemap.xml`);
    expect(map.status).toBe(200);
    expect(map.text).toContain(`<loc>${BASE}/site/${p.slug}/llms.txt</loc>`);
    expect(map.text).toContain(`<loc>${BASE}/site/${p.slug}/${p.doc}.md</loc>`);
    expect(map.text).toContain(`<loc>${BASE}/site/${p.slug}/${p.doc}</loc>`);
    expect(map.text).not.toContain(p.hidden);
  });
});
