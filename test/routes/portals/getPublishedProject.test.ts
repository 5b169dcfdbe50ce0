/** getPublishedProject: GET /published/{publishedId}/project (src/routes/portals/published.ts) — its happy path, errors and request-path checks. */
/**
 * Published portals (docs/api-guide.md › Automations, published portals, collaborative editing, E13, E14): the publishing API, the bearer reads, and the reader site with its
 * caching, safety, findability and password rules — all through the real Worker in workerd.
 */
import { SELF } from "cloudflare:test";
import { beforeAll, describe, expect, it } from "vitest";
import { BASE, call, expectError, ok, seedTenant, type Tenant } from "../../support/harness";
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

async function page(path: string, init: RequestInit & { host?: string } = {}) {
  const url = init.host ? `http://${init.host}${path}` : `${BASE}${path}`;
  const res = await SELF.fetch(url, { redirect: "manual", ...init });
  return { status: res.status, headers: res.headers, text: await res.text() };
}

describe("E14 project data", () => {
  it("lists only published, non-deleted documents to any bearer, with ETag and 304", async () => {
    const p = await seedPortal();
    await ok("PATCH", `/project/${p.projectId}/publish/${p.slug}`, { token: t.owner.token, body: { homepage: p.doc } });
    const res = await call("GET", `/published/${p.projectId}/project`, { token: t.outsider.token });
    expect(res.status).toBe(200);
    expect(res.body.data.projectId).toBe(p.projectId);
    expect(res.body.data.projectData).toMatchObject({
      name: "Handbook",
      description: "Our team handbook",
      icon: null,
      emoji: null,
      homepage: p.doc,
    });
    const docs = res.body.data.projectData.documents;
    expect(docs.map((d: { _id: string }) => d._id).sort()).toEqual([p.folder, p.doc].sort());
    expect(docs.find((d: { _id: string }) => d._id === p.doc)).toEqual({
      _id: p.doc,
      parentId: p.folder,
      name: "Leave policy",
      type: "DOCUMENT",
      order: expect.any(Number),
      icon: null,
      emoji: null,
    });
    const etag = res.headers.get("etag")!;
    expect(etag).toMatch(/^"[^"]+"$/);
    expect(res.headers.get("cache-control")).toBeTruthy();
    expect(
      (
        await call("GET", `/published/${p.projectId}/project`, {
          token: t.viewer.token,
          headers: { "if-none-match": etag },
        })
      ).status,
    ).toBe(304);
    // A rename of a published document changes the ETag.
    await ok("PATCH", `/document/${p.doc}`, { token: t.owner.token, body: { name: "Leave" } });
    const renamed = await call("GET", `/published/${p.projectId}/project`, {
      token: t.viewer.token,
      headers: { "if-none-match": etag },
    });
    expect(renamed.status).toBe(200);
    expect(renamed.headers.get("etag")).not.toBe(etag);
    expect(await ok("GET", "/published/home/project", { token: t.viewer.token, query: { slug: p.slug } })).toEqual(
      renamed.body,
    );
  });

  it("protected: 401 without a valid user-published-token, login issues a 24 h token; disabled and expired 403; unpublished 404", async () => {
    const p = await seedPortal({ password: "open sesame" });
    expectError(
      await call("GET", `/published/${p.projectId}/project`, { token: t.outsider.token }),
      401,
      "UnauthorizedError",
    );
    expectError(
      await call("GET", `/published/${p.projectId}/project`, {
        token: t.outsider.token,
        headers: { "user-published-token": "forged.1.x" },
      }),
      401,
      "UnauthorizedError",
    );
    expectError(
      await call("POST", `/published/${p.projectId}/login`, {
        token: t.outsider.token,
        body: { password: "wrong" },
        headers: { "cf-connecting-ip": "10.1.0.1" },
      }),
      401,
      "UnauthorizedError",
    );
    const login = await ok("POST", `/published/${p.projectId}/login`, {
      token: t.outsider.token,
      body: { password: "open sesame" },
      headers: { "cf-connecting-ip": "10.1.0.1" },
    });
    expect(login.data.token).toEqual(expect.any(String));
    expect(login.data.expiresAt).toBeGreaterThan(Date.now() + 23 * 3600_000);
    expect(login.data.expiresAt).toBeLessThanOrEqual(Date.now() + 24 * 3600_000 + 1000);
    const headers = { "user-published-token": login.data.token };
    expect((await call("GET", `/published/${p.projectId}/project`, { token: t.outsider.token, headers })).status).toBe(
      200,
    );
    // A tampered token fails; a password change revokes tokens issued under the old one.
    const tampered = login.data.token.replace(/.$/, (ch: string) => (ch === "A" ? "B" : "A"));
    expectError(
      await call("GET", `/published/${p.projectId}/project`, {
        token: t.outsider.token,
        headers: { "user-published-token": tampered },
      }),
      401,
      "UnauthorizedError",
    );
    await ok("PATCH", `/project/${p.projectId}/publish/${p.slug}`, {
      token: t.owner.token,
      body: { password: "new one" },
    });
    expectError(
      await call("GET", `/published/${p.projectId}/project`, { token: t.outsider.token, headers }),
      401,
      "UnauthorizedError",
    );
    await ok("PATCH", `/project/${p.projectId}/publish/${p.slug}`, { token: t.owner.token, body: { disabled: true } });
    expectError(
      await call("GET", `/published/${p.projectId}/project`, { token: t.outsider.token }),
      403,
      "ForbiddenError",
    );
    expectError(
      await call("POST", `/published/${p.projectId}/login`, { token: t.outsider.token, body: { password: "new one" } }),
      403,
      "ForbiddenError",
    );
    await ok("PATCH", `/project/${p.projectId}/publish/${p.slug}`, {
      token: t.owner.token,
      body: { disabled: false, expiresAt: Date.now() - 1 },
    });
    expectError(
      await call("GET", `/published/${p.projectId}/project`, { token: t.outsider.token }),
      403,
      "ForbiddenError",
    );
    await ok("DELETE", `/project/${p.projectId}/publish/${p.slug}`, { token: t.owner.token });
    expectError(
      await call("GET", `/published/${p.projectId}/project`, { token: t.outsider.token }),
      404,
      "NotFoundError",
    );
    expectError(await call("GET", `/published/${p.projectId}/project`), 401, "UnauthorizedError");
  });
});

describe("reader site", () => {
  it("protects pages with a password form, a portal-scoped cookie and a 303 back; 401 on a wrong password; 429 after 10 attempts", async () => {
    const p = await seedPortal({ password: "let me in" });
    const gate = await page(`/site/${p.slug}/${p.doc}`);
    expect(gate.status).toBe(401);
    expect(gate.headers.get("cache-control")).toBe("private, no-store");
    expect(gate.text).toContain(`action="/site/${p.slug}/login"`);
    expect(gate.text).toContain('type="password"');
    expect(gate.text).toContain(`name="next" value="/site/${p.slug}/${p.doc}"`);
    expect(gate.text).not.toContain("Leave policy");
    const form = (password: string, next: string, ip = "10.3.0.1") =>
      page(`/site/${p.slug}/login`, {
        method: "POST",
        headers: { "content-type": "application/x-www-form-urlencoded", "cf-connecting-ip": ip },
        body: new URLSearchParams({ password, next }).toString(),
      });
    const wrong = await form("nope", `/site/${p.slug}/${p.doc}`);
    expect(wrong.status).toBe(401);
    expect(wrong.text).toContain("not correct");
    expect(wrong.headers.get("set-cookie")).toBeNull();
    const right = await form("let me in", `/site/${p.slug}/${p.doc}`);
    expect(right.status).toBe(303);
    expect(right.headers.get("location")).toBe(`/site/${p.slug}/${p.doc}`);
    const cookie = right.headers.get("set-cookie")!;
    expect(cookie).toMatch(/^portal_token=[^;]+;/);
    expect(cookie).toContain(`Path=/site/${p.slug}`);
    expect(cookie).toMatch(/HttpOnly/i);
    expect(cookie).toMatch(/Secure/i);
    expect(cookie).toMatch(/SameSite=Lax/i);
    expect(cookie).toMatch(/Max-Age=86[34]\d\d/);
    const token = cookie.split(";")[0]!;
    const opened = await page(`/site/${p.slug}/${p.doc}`, { headers: { cookie: token } });
    expect(opened.status).toBe(200);
    expect(opened.text).toContain("Leave policy");
    expect(opened.headers.get("cache-control")).toBe("private, no-store");
    expect(opened.headers.get("x-robots-tag")).toBe("noindex");
    expect(opened.headers.get("x-portal-cache")).toBeNull();
    // The same token works as E14's user-published-token.
    expect(
      (
        await call("GET", `/published/${p.projectId}/project`, {
          token: t.outsider.token,
          headers: { "user-published-token": decodeURIComponent(token.split("=")[1]!) },
        })
      ).status,
    ).toBe(200);
    // `next` cannot leave the portal.
    for (const next of ["https://evil.test/", "//evil.test", "/site/other-portal", `/site/${p.slug}/../../x`]) {
      const r = await form("let me in", next, "10.3.0.9");
      expect(r.headers.get("location"), next).toBe(`/site/${p.slug}`);
    }
    // Limit: 10 attempts per minute per address and portal.
    let limited = null;
    for (let i = 0; i < 25 && !limited; i++) {
      const r = await form("bad", `/site/${p.slug}`, "10.3.0.2");
      if (r.status === 429) limited = r;
      else expect(r.status).toBe(401);
    }
    expect(limited, "no 429 within 25 attempts").not.toBeNull();
    expect(Number(limited!.headers.get("retry-after"))).toBeGreaterThan(0);
  });
});
