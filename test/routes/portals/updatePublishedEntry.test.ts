/** updatePublishedEntry: PATCH /project/{id}/publish/{slug} (src/routes/portals/publish.ts) — its happy path, errors and request-path checks. */
/**
 * Published portals (docs/api-guide.md › Automations, published portals, collaborative editing, E13, E14): the publishing API, the bearer reads, and the reader site with its
 * caching, safety, findability and password rules — all through the real Worker in workerd.
 */
import { SELF } from "cloudflare:test";
import { beforeAll, describe, expect, it } from "vitest";
import { BASE, call, expectError, ok, seedTenant, type Tenant } from "../../support/harness";
import { verifyDomain } from "../../support/portalDomains";
import { shardD1 } from "../../support/shards";

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
  it("adds an entry, renders published[] per the specification, stores a PBKDF2 hash", async () => {
    const p = await seedPortal({ password: "s3cret!" });
    expect(p.project.published).toEqual([
      { slug: p.slug, domain: "", homepage: "", password: "********", disabled: false },
    ]);
    const row = await shardD1(p.projectId)
      .prepare("SELECT password_hash FROM published_entries WHERE slug = ?")
      .bind(p.slug)
      .first<{ password_hash: string }>();
    expect(row!.password_hash).toMatch(/^pbkdf2-sha256\$100000\$[A-Za-z0-9_-]{22}\$[A-Za-z0-9_-]{43}$/);
    expect(row!.password_hash).not.toContain("s3cret");
    // GET /project renders the same mirror.
    const got = await ok("GET", `/project/${p.projectId}`, { token: t.owner.token });
    expect(got.data.published).toEqual(p.project.published);
    // Removing the password: "" again.
    const patched = await ok("PATCH", `/project/${p.projectId}/publish/${p.slug}`, {
      token: t.owner.token,
      body: { password: "" },
    });
    expect(patched.data.published[0].password).toBe("");
  });

  it("answers an entry past expiresAt as disabled", async () => {
    const p = await seedPortal({ expiresAt: Date.now() + 60_000 });
    expect(p.project.published[0].disabled).toBe(false);
    const past = await ok("PATCH", `/project/${p.projectId}/publish/${p.slug}`, {
      token: t.owner.token,
      body: { expiresAt: Date.now() - 1000 },
    });
    expect(past.data.published[0].disabled).toBe(true);
  });
});

describe("E14 project data", () => {
  it('keeps the password when PATCH sends back the "********" it read', async () => {
    const p = await seedPortal({ password: "keep me" });
    const entry = p.project.published[0];
    expect(entry.password).toBe("********");
    // A client sends back the entry it read (docs/api-guide.md › Conventions): the masked password means "unchanged".
    const patched = await ok("PATCH", `/project/${p.projectId}/publish/${p.slug}`, {
      token: t.owner.token,
      body: { ...entry, homepage: p.doc },
    });
    expect(patched.data.published[0].password).toBe("********");
    const headers = { "cf-connecting-ip": "10.5.0.1" };
    expect(
      (
        await call("POST", `/published/${p.projectId}/login`, {
          token: t.outsider.token,
          body: { password: "keep me" },
          headers,
        })
      ).status,
    ).toBe(200);
    expectError(
      await call("POST", `/published/${p.projectId}/login`, {
        token: t.outsider.token,
        body: { password: "********" },
        headers,
      }),
      401,
      "UnauthorizedError",
    );
  });
});

describe("reader site", () => {
  it("answers 404 pages for unknown slugs and unpublished or deleted documents, 403 for disabled and expired entries", async () => {
    const p = await seedPortal();
    for (const path of [
      `/site/${uniqueSlug("none")}`,
      `/site/${p.slug}/${p.hidden}`,
      `/site/${p.slug}/${p.gone}`,
      `/site/${p.slug}/${t.docId}`,
      `/site/${p.slug}/NOPE`,
    ]) {
      const r = await page(path);
      expect(r.status, path).toBe(404);
      expect(r.headers.get("content-type")).toMatch(/^text\/html/);
      expect(r.text).toContain("Page not found");
    }
    await ok("PATCH", `/project/${p.projectId}/publish/${p.slug}`, { token: t.owner.token, body: { disabled: true } });
    expect((await page(`/site/${p.slug}`)).status).toBe(403);
    expect((await page(`/site/${p.slug}/${p.doc}`)).status).toBe(403);
    await ok("PATCH", `/project/${p.projectId}/publish/${p.slug}`, { token: t.owner.token, body: { disabled: false } });
    expect((await page(`/site/${p.slug}`)).status).toBe(200);
    await ok("PATCH", `/project/${p.projectId}/publish/${p.slug}`, {
      token: t.owner.token,
      body: { expiresAt: Date.now() - 1 },
    });
    const expired = await page(`/site/${p.slug}/${p.doc}`);
    expect(expired.status).toBe(403);
    expect(expired.text).toContain("not available");
    await ok("DELETE", `/project/${p.projectId}/publish/${p.slug}`, { token: t.owner.token });
    expect((await page(`/site/${p.slug}`)).status).toBe(404);
  });
});
