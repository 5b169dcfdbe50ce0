/** getPublishedBranding: GET /published/{publishedId}/branding (src/routes/portals/published.ts) — its happy path, errors and request-path checks. */
/**
 * Published portals (docs/api-guide.md › Automations, published portals, collaborative editing, E13, E14): the publishing API, the bearer reads, and the reader site with its
 * caching, safety, findability and password rules — all through the real Worker in workerd.
 */
import { SELF } from "cloudflare:test";
import { beforeAll, describe, expect, it } from "vitest";
import { call, expectError, ok, seedTenant, type Tenant } from "../../support/harness";
import { seedPortalFor, uniqueSlug, type PortalOptions } from "../../support/portals";

let t: Tenant;
beforeAll(async () => {
  t = await seedTenant();
});

const seedPortal = (opts: PortalOptions = {}) => seedPortalFor(t, opts);

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
