/** publishProject: POST /project/{id}/publish (src/routes/portals/publish.ts) — its happy path, errors and request-path checks. */
import { createExecutionContext, env, SELF, waitOnExecutionContext } from "cloudflare:test";
import { beforeAll, describe, expect, it } from "vitest";
import worker from "../../../src/index";
import { BASE, call, expectError, ok, seedTenant, type Tenant, registerUser } from "../../support/harness";
import { entryOf, verifyDomain } from "../../support/portalDomains";

/**
 * Portal domains belong to their owner (docs/api-guide.md, "Published portals"): never one of the service's own host
 * names (SERVICE_HOSTNAMES, whatever the request's Host), served only once a TXT record proves ownership (checked
 * through DNS over HTTPS; the tests' resolver is test/setup/doh-server.ts), and unique among verified domains, so a
 * pending claim cannot squat a domain its real owner then verifies.
 */
describe("portal-domains", () => {
  let t: Tenant;
  let other: Tenant;
  beforeAll(async () => {
    [t, other] = await Promise.all([seedTenant(), seedTenant()]);
  });

  let n = 0;
  const unique = (p: string) => `${p}-${Date.now().toString(36)}-${++n}-${Math.random().toString(36).slice(2, 6)}`;

  /** A project of `tenant` with one published document, not yet published as a portal. */
  async function project(tenant: Tenant) {
    const p = (
      await ok("POST", "/project", {
        token: tenant.owner.token,
        body: { workspaceId: tenant.workspaceId, name: "Docs" },
      })
    ).data;
    const doc = (
      await ok("POST", "/document", {
        token: tenant.owner.token,
        body: { projectId: p._id, name: "Welcome page", type: "DOCUMENT" },
      })
    ).data._id as string;
    await ok("POST", `/document/${doc}/publish`, { token: tenant.owner.token, body: {} });
    return p._id as string;
  }

  const fetchAs = (host: string, path: string, token?: string) =>
    SELF.fetch(`http://${host}${path}`, { headers: token ? { authorization: `Bearer ${token}` } : {} });

  describe("portal domains", () => {
    it("refuses the service's own host names (422) whatever Host the request names, port or case aside", async () => {
      const id = await project(t);
      const slug = unique("own");
      await ok("POST", `/project/${id}/publish`, { token: t.owner.token, body: { slug } });
      for (const domain of ["127.0.0.1:8899", "127.0.0.1", "API.test", "api.test:443"]) {
        const patch = await SELF.fetch(`${BASE}/project/${id}/publish/${slug}`, {
          method: "PATCH",
          headers: {
            host: "evil.example",
            authorization: `Bearer ${t.owner.token}`,
            "content-type": "application/json",
          },
          body: JSON.stringify({ domain }),
        });
        expect(patch.status, domain).toBe(422);
        expect(((await patch.json()) as { error: string }).error).toBe("UnprocessableEntityError");
        expectError(
          await call("POST", `/project/${id}/publish`, { token: t.owner.token, body: { slug: unique("own"), domain } }),
          422,
          "UnprocessableEntityError",
        );
      }
      // The API's root on its own host is still the API's.
      const root = await fetchAs("127.0.0.1:8899", "/");
      expect(root.headers.get("content-type") ?? "").not.toMatch(/text\/html/);
      await root.arrayBuffer();
    });

    it("keeps a verified domain unique across the service (409), while a pending claim cannot squat its owner's domain", async () => {
      const domain = `${unique("shared")}.example.com`;
      const squatter = await project(other);
      const squatSlug = unique("squat");
      await ok("POST", `/project/${squatter}/publish`, { token: other.owner.token, body: { slug: squatSlug, domain } });
      // The real owner can still claim the domain and prove it.
      const owner = await project(t);
      const ownerSlug = unique("real");
      await ok("POST", `/project/${owner}/publish`, { token: t.owner.token, body: { slug: ownerSlug, domain } });
      await verifyDomain(t.owner.token, owner, ownerSlug);
      // The squatter cannot verify (the owner's record does not name its token), nor would the record make it unique.
      expectError(
        await call("POST", `/project/${squatter}/publish/${squatSlug}/verify-domain`, {
          token: other.owner.token,
          body: {},
        }),
        409,
        "ConflictError",
      );
      // Once verified, claiming the domain again is 409.
      expectError(
        await call("POST", `/project/${squatter}/publish`, {
          token: other.owner.token,
          body: { slug: unique("late"), domain },
        }),
        409,
        "ConflictError",
      );
      expectError(
        await call("PATCH", `/project/${squatter}/publish/${squatSlug}`, {
          token: other.owner.token,
          body: { domain: domain.toUpperCase() },
        }),
        409,
        "ConflictError",
      );
      const page = await fetchAs(domain, "/published/home/project", t.outsider.token);
      expect(((await page.json()) as { data: { projectId: string } }).data.projectId).toBe(owner);
    });

    it("with DOMAIN_VERIFICATION=off (local use), verifies at once and then keeps the domain unique (409)", async () => {
      const off = { ...env, DOMAIN_VERIFICATION: "off" };
      const send = async (method: string, path: string, token: string, body: unknown) => {
        const ctx = createExecutionContext();
        const res = await worker.fetch(
          new Request(`${BASE}${path}`, {
            method,
            headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
            body: JSON.stringify(body),
          }),
          off,
          ctx,
        );
        await waitOnExecutionContext(ctx);
        return { status: res.status, body: (await res.json()) as { data: { published: never[] }; error?: string } };
      };
      const id = await project(t);
      const slug = unique("off");
      const domain = `${unique("local")}.example.com`;
      const res = await send("POST", `/project/${id}/publish`, t.owner.token, { slug, domain });
      expect(res.status).toBe(200);
      expect(entryOf(res.body.data, slug).domainVerification!.status).toBe("verified");
      expect((await fetchAs(domain, "/")).status).toBe(200);
      const again = await send("POST", `/project/${await project(other)}/publish`, other.owner.token, {
        slug: unique("off"),
        domain,
      });
      expect(again.status).toBe(409);
      expect(again.body.error).toBe("ConflictError");
    });
  });
});

/**
 * Published portals (docs/api-guide.md › Automations, published portals, collaborative editing, E13, E14): the publishing API, the bearer reads, and the reader site with its
 * caching, safety, findability and password rules — all through the real Worker in workerd.
 */
describe("portals", () => {
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

  async function page(path: string, init: RequestInit & { host?: string } = {}) {
    const url = init.host ? `http://${init.host}${path}` : `${BASE}${path}`;
    const res = await SELF.fetch(url, { redirect: "manual", ...init });
    return { status: res.status, headers: res.headers, text: await res.text() };
  }

  describe("publishing API", () => {
    it("keeps slugs and domains unique across the service (409), validates and lower-cases", async () => {
      const domain = `${uniqueSlug("d")}.example.com`;
      const a = await seedPortal({ domain: domain.toUpperCase() });
      expect(a.project.published[0].domain).toBe(domain);
      const other = await registerUser("Other publisher");
      const project = (
        await ok("POST", "/project", { token: other.token, body: { workspaceId: other.workspaceId, name: "Other" } })
      ).data;
      expectError(
        await call("POST", `/project/${project._id}/publish`, { token: other.token, body: { slug: a.slug } }),
        409,
        "ConflictError",
      );
      expectError(
        await call("POST", `/project/${project._id}/publish`, {
          token: other.token,
          body: { slug: a.slug.toUpperCase() },
        }),
        409,
        "ConflictError",
      );
      expectError(
        await call("POST", `/project/${project._id}/publish`, {
          token: other.token,
          body: { slug: uniqueSlug(), domain },
        }),
        409,
        "ConflictError",
      );
      for (const slug of ["", "has space", "-lead", "assets", "a".repeat(64), "ünï"]) {
        expectError(
          await call("POST", `/project/${project._id}/publish`, { token: other.token, body: { slug } }),
          400,
          "ValidationError",
        );
      }
      expectError(
        await call("POST", `/project/${project._id}/publish`, {
          token: other.token,
          body: { slug: uniqueSlug(), domain: "not a host" },
        }),
        400,
        "ValidationError",
      );
      expectError(
        await call("POST", `/project/${project._id}/publish`, {
          token: other.token,
          body: { slug: uniqueSlug(), extra: 1 },
        }),
        400,
        "ValidationError",
      );
      expectError(
        await call("POST", `/project/${project._id}/publish`, {
          token: other.token,
          body: { slug: uniqueSlug(), homepage: a.doc },
        }),
        422,
        "UnprocessableEntityError",
      );
      expectError(
        await call("POST", `/project/${project._id}/publish`, {
          token: other.token,
          body: { slug: uniqueSlug(), domain: "api.test" },
        }),
        422,
        "UnprocessableEntityError",
      );
      // Nothing was written by the failures: the project has no entry.
      expect((await ok("GET", `/project/${project._id}`, { token: other.token })).data.published).toEqual([]);
      // Two entries on one project, then a domain moved between them.
      const second = uniqueSlug();
      await ok("POST", `/project/${a.projectId}/publish`, { token: t.owner.token, body: { slug: second } });
      expectError(
        await call("PATCH", `/project/${a.projectId}/publish/${second}`, { token: t.owner.token, body: { domain } }),
        409,
        "ConflictError",
      );
      const after = await ok("DELETE", `/project/${a.projectId}/publish/${a.slug}`, { token: t.owner.token });
      expect(after.data.published.map((e: { slug: string }) => e.slug)).toEqual([second]);
      const moved = await ok("PATCH", `/project/${a.projectId}/publish/${second}`, {
        token: t.owner.token,
        body: { domain },
      });
      expect(moved.data.published[0].domain).toBe(domain);
      expectError(
        await call("DELETE", `/project/${a.projectId}/publish/${a.slug}`, { token: t.owner.token }),
        404,
        "NotFoundError",
      );
    });

    it("needs a project admin: editor and viewer 403, outsider 404", async () => {
      const p = await seedPortal();
      for (const u of [t.editor, t.viewer]) {
        expectError(
          await call("POST", `/project/${p.projectId}/publish`, { token: u.token, body: { slug: uniqueSlug() } }),
          403,
          "ForbiddenError",
        );
        expectError(
          await call("PATCH", `/project/${p.projectId}/publish/${p.slug}`, {
            token: u.token,
            body: { disabled: true },
          }),
          403,
          "ForbiddenError",
        );
        expectError(
          await call("PUT", `/project/${p.projectId}/branding`, { token: u.token, body: {} }),
          403,
          "ForbiddenError",
        );
      }
      expectError(
        await call("DELETE", `/project/${p.projectId}/publish/${p.slug}`, { token: t.outsider.token }),
        404,
        "NotFoundError",
      );
    });
  });

  describe("reader site", () => {
    it("caches public pages: miss then hit, strong ETag, 304, public Cache-Control, 1 D1 round trip on a hit", async () => {
      const p = await seedPortal();
      const first = await page(`/site/${p.slug}/${p.doc}`);
      expect(first.headers.get("x-portal-cache")).toBe("miss");
      expect(first.headers.get("cache-control")).toBe("public, max-age=60, stale-while-revalidate=600");
      const etag = first.headers.get("etag")!;
      expect(etag).toMatch(/^"[A-Za-z0-9]+"$/);
      const second = await page(`/site/${p.slug}/${p.doc}`);
      expect(second.headers.get("x-portal-cache")).toBe("hit");
      expect(second.headers.get("etag")).toBe(etag);
      expect(second.text).toBe(first.text);
      expect(Number(second.headers.get("x-d1-round-trips"))).toBeLessThanOrEqual(1);
      const cond = await page(`/site/${p.slug}/${p.doc}`, { headers: { "if-none-match": etag } });
      expect(cond.status).toBe(304);
      expect(cond.text).toBe("");
      expect(cond.headers.get("etag")).toBe(etag);
      // Other pages of the portal have their own ETags.
      expect((await page(`/site/${p.slug}`)).headers.get("etag")).not.toBe(etag);
    });

    it("serves the portal at / and /{documentId} on its own domain without breaking the API's routes or 404s", async () => {
      const domain = `${uniqueSlug("h")}.docs.test`;
      const p = await seedPortal({ domain });
      const home = await page("/", { host: domain });
      expect(home.status).toBe(200);
      expect(home.text).toContain(`href="/${p.doc}"`);
      const doc = await page(`/${p.doc}`, { host: domain });
      expect(doc.status).toBe(200);
      expect(doc.text).toContain("Leave policy");
      expect((await page(`/${p.hidden}`, { host: domain })).status).toBe(404);
      // The API still answers on that host, and on its own host / and unknown paths are the JSON 404.
      const health = await SELF.fetch(`http://${domain}/health`);
      expect(health.status).toBe(200);
      expect(health.headers.get("content-type")).toMatch(/json/);
      const me = await SELF.fetch(`http://${domain}/me`, { headers: { authorization: `Bearer ${t.owner.token}` } });
      expect(me.status).toBe(200);
      for (const path of ["/", `/${p.doc}`, "/no-such-thing"]) {
        const r = await call("GET", path);
        expectError(r, 404, "NotFoundError");
      }
      expectError(await call("GET", "/", { headers: { host: "elsewhere.test" } }), 404, "NotFoundError");
    });

    it("sends the safety headers on the login redirect too", async () => {
      const p = await seedPortal({ password: "redirect-pw" });
      const res = await page(`/site/${p.slug}/login`, {
        method: "POST",
        headers: { "content-type": "application/x-www-form-urlencoded", "cf-connecting-ip": "10.7.0.1" },
        body: new URLSearchParams({ password: "redirect-pw", next: `/site/${p.slug}/${p.doc}` }).toString(),
      });
      expect(res.status).toBe(303);
      const csp = res.headers.get("content-security-policy");
      expect(csp).toContain("default-src 'none'");
      expect(csp).not.toContain("unsafe-inline");
      expect(res.headers.get("x-content-type-options")).toBe("nosniff");
      expect(res.headers.get("referrer-policy")).toBe("strict-origin-when-cross-origin");
    });

    it("on its own domain the login cookie is scoped to /", async () => {
      const domain = `${uniqueSlug("c")}.docs.test`;
      const p = await seedPortal({ domain, password: "pw-domain" });
      const gate = await page(`/${p.doc}`, { host: domain });
      expect(gate.status).toBe(401);
      expect(gate.text).toContain(`name="next" value="/${p.doc}"`);
      const res = await page(`/site/${p.slug}/login`, {
        host: domain,
        method: "POST",
        headers: { "content-type": "application/x-www-form-urlencoded", "cf-connecting-ip": "10.4.0.1" },
        body: new URLSearchParams({ password: "pw-domain", next: `/${p.doc}` }).toString(),
      });
      expect(res.status).toBe(303);
      expect(res.headers.get("location")).toBe(`/${p.doc}`);
      expect(res.headers.get("set-cookie")).toContain("Path=/;");
      const opened = await page(`/${p.doc}`, {
        host: domain,
        headers: { cookie: res.headers.get("set-cookie")!.split(";")[0]! },
      });
      expect(opened.status).toBe(200);
    });

    it("offers a sitemap and allows indexing only with allowIndexing on a public, non-expiring entry", async () => {
      const closed = await seedPortal();
      const r1 = await page(`/site/${closed.slug}`);
      expect(r1.headers.get("x-robots-tag")).toBe("noindex");
      expect(r1.text).toContain('<meta name="robots" content="noindex');
      expect((await page(`/site/${closed.slug}/sitemap.xml`)).status).toBe(404);
      const open = await seedPortal({ allowIndexing: true });
      const r2 = await page(`/site/${open.slug}`);
      expect(r2.headers.get("x-robots-tag")).toBeNull();
      expect(r2.text).not.toContain('name="robots"');
      const map = await page(`/site/${open.slug}/sitemap.xml`);
      expect(map.status).toBe(200);
      expect(map.headers.get("content-type")).toMatch(/xml/);
      expect(map.text).toContain(`<loc>${BASE}/site/${open.slug}/${open.doc}</loc>`);
      expect(map.text).not.toContain(open.hidden);
      const expiring = await seedPortal({ allowIndexing: true, expiresAt: Date.now() + 3600_000 });
      expect((await page(`/site/${expiring.slug}`)).headers.get("x-robots-tag")).toBe("noindex");
      expect((await page(`/site/${expiring.slug}/sitemap.xml`)).status).toBe(404);
    });
  });
});
