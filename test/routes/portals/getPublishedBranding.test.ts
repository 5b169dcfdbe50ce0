/** getPublishedBranding: GET /published/{publishedId}/branding (src/routes/portals/published.ts) — its happy path, errors and request-path checks. */
/**
 * Published portals (docs/api-guide.md › Automations, published portals, collaborative editing, E13, E14): the publishing API, the bearer reads, and the reader site with its
 * caching, safety, findability and password rules — all through the real Worker in workerd.
 */
import { SELF } from "cloudflare:test";
import { beforeAll, describe, expect, it } from "vitest";
import { call, expectError, ok, seedTenant, type Tenant } from "../../support/harness";
import { verifyDomain } from "../../support/portalDomains";

let t: Tenant;
beforeAll(async () => {
  t = await seedTenant();
});

let n = 0;
const uniqueSlug = (p = "p") => `${p}-${Date.now().toString(36)}-${++n}-${Math.random().toString(36).slice(2, 6)}`;

/** A fresh project of the tenant with published documents (folder → doc, plus an unpublished and a deleted one). */
async function seedPortal(
  opts: {
    slug?: string;
    domain?: string;
    password?: string;
    expiresAt?: number;
    allowIndexing?: boolean;
    name?: string;
    docName?: string;
    tenant?: Tenant;
  } = {},
) {
  const tenant = opts.tenant ?? t;
  const tok = tenant.owner.token;
  const project = (
    await ok("POST", "/project", {
      token: tok,
      body: { workspaceId: tenant.workspaceId, name: opts.name ?? "Handbook", description: "Our team handbook" },
    })
  ).data;
  const mk = async (name: string, type: "FOLDER" | "DOCUMENT", parentId?: string) =>
    (
      await ok("POST", "/document", {
        token: tok,
        body: { projectId: project._id, name, type, ...(parentId && { parentId }) },
      })
    ).data._id as string;
  const folder = await mk("Policies", "FOLDER");
  const doc = await mk(opts.docName ?? "Leave policy", "DOCUMENT", folder);
  const hidden = await mk("Draft salaries", "DOCUMENT", folder);
  const gone = await mk("Deleted page", "DOCUMENT", folder);
  for (const id of [folder, doc, gone]) await ok("POST", `/document/${id}/publish`, { token: tok, body: {} });
  await ok("DELETE", `/document/${gone}`, { token: tok });
  const slug = opts.slug ?? uniqueSlug();
  const published = await ok("POST", `/project/${project._id}/publish`, {
    token: tok,
    body: {
      slug,
      ...(opts.domain && { domain: opts.domain }),
      ...(opts.password && { password: opts.password }),
      ...(opts.expiresAt && { expiresAt: opts.expiresAt }),
      ...(opts.allowIndexing !== undefined && { allowIndexing: opts.allowIndexing }),
    },
  });
  // A domain is served once its owner proves it (TXT record on the tests' resolver, then verify-domain).
  const record = opts.domain ? await verifyDomain(tok, project._id, slug) : published.data;
  return { projectId: project._id as string, folder, doc, hidden, gone, slug, project: record };
}

describe("E13 branding", () => {
  it("is null without branding, the full object after PUT, resolves home by Host then by slug, 404 when unpublished", async () => {
    const domain = `${uniqueSlug("b")}.example.com`;
    const p = await seedPortal({ domain });
    const none = await ok("GET", `/published/${p.projectId}/branding`, { token: t.outsider.token });
    expect(none).toEqual({ data: null });
    await ok("PUT", `/project/${p.projectId}/branding`, {
      token: t.owner.token,
      body: {
        company: { name: "Acme", logo: "https://acme.test/logo.png", url: "https://acme.test" },
        socials: [{ platform: "x", handle: "acme" }],
      },
    });
    const want = {
      company: { name: "Acme", logo: "https://acme.test/logo.png", url: "https://acme.test" },
      callToAction: { enabled: false, icon: { name: "", color: "" }, text: "", url: "" },
      socials: [{ platform: "x", handle: "acme" }],
    };
    const res = await call("GET", `/published/${p.projectId}/branding`, { token: t.outsider.token });
    expect(res.body).toEqual({ data: want });
    expect(res.headers.get("etag")).toMatch(/^"[^"]+"$/);
    expect(res.headers.get("cache-control")).toBeTruthy();
    const again = await call("GET", `/published/${p.projectId}/branding`, {
      token: t.outsider.token,
      headers: { "if-none-match": res.headers.get("etag")! },
    });
    expect(again.status).toBe(304);
    // home: by Host, else by slug.
    const byHost = await SELF.fetch(`http://${domain}/published/home/branding`, {
      headers: { authorization: `Bearer ${t.viewer.token}` },
    });
    expect(await byHost.json()).toEqual({ data: want });
    expect(await ok("GET", "/published/home/branding", { token: t.viewer.token, query: { slug: p.slug } })).toEqual({
      data: want,
    });
    expectError(await call("GET", "/published/home/branding", { token: t.viewer.token }), 404, "NotFoundError");
    expectError(
      await call("GET", `/published/${t.projectId}/branding`, { token: t.owner.token }),
      404,
      "NotFoundError",
    );
    expectError(await call("GET", `/published/${p.projectId}/branding`), 401, "UnauthorizedError");
  });
});
