/**
 * Published portals (docs/api-guide.md › Automations, published portals, collaborative editing, E13, E14): the publishing API, the bearer reads, and the reader site with its
 * caching, safety, findability and password rules — all through the real Worker in workerd.
 */
import { SELF } from "cloudflare:test";
import { beforeAll, describe, expect, it } from "vitest";
import { BASE, call, expectError, ok, registerUser, seedTenant, type Tenant } from "../../support/harness";
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

const putContent = (id: string, blocks: unknown) =>
  ok("PUT", `/document/${id}/content`, { token: t.owner.token, body: { blocks } });

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
        await call("PATCH", `/project/${p.projectId}/publish/${p.slug}`, { token: u.token, body: { disabled: true } }),
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

describe("branding URLs", () => {
  it("accepts only http(s) links on write (400 otherwise) and never returns a stored non-http(s) link from /published/*", async () => {
    const p = await seedPortal();
    const put = (body: unknown) => call("PUT", `/project/${p.projectId}/branding`, { token: t.owner.token, body });
    for (const bad of [
      "javascript:alert(document.domain)",
      "JaVa\tScRiPt:alert(1)",
      " javascript:alert(1)",
      "data:text/html,<script>alert(1)</script>",
      "vbscript:x",
      "mailto:a@b.test",
      "/relative/logo.png",
      "not a url",
    ]) {
      expectError(await put({ company: { logo: bad } }), 400, "ValidationError");
      expectError(await put({ company: { url: bad } }), 400, "ValidationError");
      expectError(await put({ callToAction: { enabled: true, url: bad } }), 400, "ValidationError");
    }
    expectError(await put({ socials: [{ platform: "x", handle: "javascript:alert(1)" }] }), 400, "ValidationError");
    expectError(
      await put({ socials: [{ platform: "mastodon", handle: "data:text/html,hi" }] }),
      400,
      "ValidationError",
    );
    await ok("PUT", `/project/${p.projectId}/branding`, {
      token: t.owner.token,
      body: {
        company: { logo: "https://acme.test/l.png", url: "" },
        callToAction: { enabled: true, url: "http://acme.test/go" },
        socials: [
          { platform: "x", handle: "@acme" },
          { platform: "mastodon", handle: "https://social.test/@acme" },
        ],
      },
    });
    // A link stored before these rules (written here straight into D1) is returned as "".
    const legacy = {
      company: { name: "Old", logo: "javascript:alert(1)", url: "java\tscript:alert(2)" },
      callToAction: { enabled: true, text: "Go", url: "data:text/html,x" },
      socials: [
        { platform: "mastodon", handle: "javascript:alert(3)" },
        { platform: "x", handle: "acme" },
      ],
    };
    await shardD1(p.projectId)
      .prepare("UPDATE projects SET published_branding = ? WHERE id = ?")
      .bind(JSON.stringify(legacy), p.projectId)
      .run();
    const read = await ok("GET", `/published/${p.projectId}/branding`, { token: t.outsider.token });
    expect(read.data).toEqual({
      company: { name: "Old", logo: "", url: "" },
      callToAction: { enabled: true, icon: { name: "", color: "" }, text: "Go", url: "" },
      socials: [
        { platform: "mastodon", handle: "" },
        { platform: "x", handle: "acme" },
      ],
    });
    expect(JSON.stringify(await ok("GET", `/project/${p.projectId}`, { token: t.owner.token }))).not.toMatch(
      /javascript|data:/i,
    );
  });
});

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

  it("counts login attempts per portal however the request names it (case, project id, home, the site form)", async () => {
    const p = await seedPortal({ password: "pw" });
    const ip = "10.6.0.1";
    const attempts = [
      () =>
        call("POST", `/published/${p.projectId}/login`, {
          token: t.outsider.token,
          body: { password: "nope" },
          headers: { "cf-connecting-ip": ip },
        }),
      () =>
        call("POST", `/published/${p.projectId}/login`, {
          token: t.outsider.token,
          body: { password: "nope" },
          query: { slug: p.slug.toUpperCase() },
          headers: { "cf-connecting-ip": ip },
        }),
      () =>
        call("POST", `/published/home/login`, {
          token: t.outsider.token,
          body: { password: "nope" },
          query: { slug: p.slug },
          headers: { "cf-connecting-ip": ip },
        }),
      () =>
        call("POST", `/published/home/login`, {
          token: t.outsider.token,
          body: { password: "nope" },
          query: { slug: p.slug.replace(/^./, (ch) => ch.toUpperCase()) },
          headers: { "cf-connecting-ip": ip },
        }),
      async () => {
        const r = await SELF.fetch(`${BASE}/site/${p.slug}/login`, {
          method: "POST",
          redirect: "manual",
          headers: { "content-type": "application/x-www-form-urlencoded", "cf-connecting-ip": ip },
          body: new URLSearchParams({ password: "nope" }).toString(),
        });
        await r.arrayBuffer();
        return { status: r.status, headers: r.headers };
      },
    ];
    // One budget of 10 a minute for the portal: even a run straddling a window boundary (twice the budget) sees a
    // 429 by the 21st attempt, which spread over five spellings would each stay far below 10.
    let limited = null;
    for (let i = 0; i < 21 && !limited; i++) {
      const res = await attempts[i % attempts.length]!();
      if (res.status === 429) limited = res;
      else expect(res.status).toBe(401);
    }
    expect(limited, "no 429 within 21 attempts spread over the ways of naming the portal").not.toBeNull();
    expect(Number(limited!.headers.get("retry-after"))).toBeGreaterThan(0);
  });

  it("limits logins to 100 a minute per portal across all client addresses, so rotating CF-Connecting-IP does not escape it", async () => {
    // A tenant of its own: these 100-odd requests must not spend the shared tenant's per-token request budget.
    const own = await seedTenant();
    const p = await seedPortal({ password: "pw", tenant: own });
    const other = await seedPortal({ password: "pw", tenant: own });
    let limited = null;
    let tries = 0;
    // A fresh address per attempt: each stays far below its own 10; the portal's 100 (twice that when a run straddles
    // a window boundary) must still answer 429. Half the attempts use the site form, which shares the budget.
    for (let i = 0; i < 205 && !limited; i++, tries++) {
      const ip = `10.${100 + (i >> 8)}.${i & 255}.7`;
      const res =
        i % 2
          ? await call("POST", `/published/${p.projectId}/login`, {
              token: own.outsider.token,
              body: { password: "nope" },
              headers: { "cf-connecting-ip": ip },
            })
          : await SELF.fetch(`${BASE}/site/${p.slug}/login`, {
              method: "POST",
              redirect: "manual",
              headers: { "content-type": "application/x-www-form-urlencoded", "cf-connecting-ip": ip },
              body: new URLSearchParams({ password: "nope" }).toString(),
            }).then(async (r) => (await r.arrayBuffer(), { status: r.status, headers: r.headers }));
      if (res.status === 429) limited = res;
      else expect(res.status).toBe(401);
    }
    expect(limited, `no 429 within ${tries} attempts from rotating addresses`).not.toBeNull();
    expect(tries).toBeGreaterThan(50);
    expect(Number(limited!.headers.get("retry-after"))).toBeGreaterThan(0);
    // Another portal's budget is its own.
    expect(
      (
        await call("POST", `/published/${other.projectId}/login`, {
          token: own.outsider.token,
          body: { password: "pw" },
          headers: { "cf-connecting-ip": "10.99.0.1" },
        })
      ).status,
    ).toBe(200);
  });

  it("limits logins to 10 a minute per client address and portal (429 with Retry-After)", async () => {
    const p = await seedPortal({ password: "pw" });
    let limited = null;
    // Fixed 60 s windows: a run straddling a boundary may get up to twice the budget before its first 429.
    for (let i = 0; i < 25 && !limited; i++) {
      const res = await call("POST", `/published/${p.projectId}/login`, {
        token: t.outsider.token,
        body: { password: "nope" },
        headers: { "cf-connecting-ip": "10.2.0.1" },
      });
      if (res.status === 429) limited = res;
      else expect(res.status).toBe(401);
    }
    expect(limited, "no 429 within 25 attempts").not.toBeNull();
    expectError(limited!, 429, "RateLimitedError");
    expect(Number(limited!.headers.get("retry-after"))).toBeGreaterThan(0);
    // Another address still may try.
    expect(
      (
        await call("POST", `/published/${p.projectId}/login`, {
          token: t.outsider.token,
          body: { password: "pw" },
          headers: { "cf-connecting-ip": "10.2.0.2" },
        })
      ).status,
    ).toBe(200);
  });
});

const ALL_BLOCKS = [
  {
    id: "1",
    type: "heading",
    props: { level: 1 },
    content: [{ type: "text", text: "Section one", styles: {} }],
    children: [],
  },
  {
    id: "2",
    type: "heading",
    props: { level: 3 },
    content: [{ type: "text", text: "Deep", styles: {} }],
    children: [],
  },
  {
    id: "3",
    type: "paragraph",
    props: {},
    content: [
      { type: "text", text: "bold", styles: { bold: true } },
      { type: "text", text: "ital", styles: { italic: true } },
      { type: "text", text: "under", styles: { underline: true } },
      { type: "text", text: "struck", styles: { strike: true } },
      { type: "text", text: "mono", styles: { code: true } },
      { type: "link", href: "https://example.com/a?b=1&c=2", content: [{ type: "text", text: "a link", styles: {} }] },
      { type: "link", href: "javascript:alert(1)", content: [{ type: "text", text: "evil link", styles: {} }] },
      { type: "link", href: "java\tscript:alert(2)", content: [{ type: "text", text: "sneaky", styles: {} }] },
      { type: "link", href: "data:text/html,<script>alert(3)</script>", content: "data link" },
      { type: "link", href: "mailto:hr@example.com", content: [{ type: "text", text: "mail", styles: {} }] },
    ],
    children: [],
  },
  {
    id: "4",
    type: "bulletListItem",
    props: {},
    content: [{ type: "text", text: "b1", styles: {} }],
    children: [{ id: "4a", type: "bulletListItem", props: {}, content: "nested", children: [] }],
  },
  { id: "5", type: "bulletListItem", props: {}, content: [{ type: "text", text: "b2", styles: {} }], children: [] },
  { id: "6", type: "numberedListItem", props: {}, content: [{ type: "text", text: "n1", styles: {} }], children: [] },
  {
    id: "7",
    type: "checkListItem",
    props: { checked: true },
    content: [{ type: "text", text: "done item", styles: {} }],
    children: [],
  },
  {
    id: "8",
    type: "checkListItem",
    props: { checked: false },
    content: [{ type: "text", text: "open item", styles: {} }],
    children: [],
  },
  { id: "9", type: "quote", props: {}, content: [{ type: "text", text: "quoted", styles: {} }], children: [] },
  {
    id: "10",
    type: "codeBlock",
    props: { language: "js" },
    content: [{ type: "text", text: "if (a < b) { run(); }", styles: {} }],
    children: [],
  },
  {
    id: "11",
    type: "table",
    props: {},
    content: {
      type: "tableContent",
      rows: [
        {
          cells: [
            [{ type: "text", text: "c11", styles: {} }],
            { type: "tableCell", content: [{ type: "text", text: "c12", styles: {} }] },
          ],
        },
      ],
    },
    children: [],
  },
  { id: "12", type: "image", props: { url: "https://img.example.com/x.png", caption: "A chart" }, children: [] },
  { id: "13", type: "image", props: { url: "javascript:alert(4)", caption: "bad image" }, children: [] },
  {
    id: "14",
    type: "mysteryWidget",
    props: {},
    content: [{ type: "text", text: "mystery text", styles: {} }],
    children: [],
  },
  {
    id: "15",
    type: "paragraph",
    props: {},
    content: [{ type: "text", text: "<script>alert('block')</script><img src=x onerror=alert(5)>", styles: {} }],
    children: [],
  },
];

describe("reader site", () => {
  it("renders the home with branding and navigation, and a document with every block type, safely", async () => {
    const p = await seedPortal({
      name: `<script>alert("project")</script>`,
      docName: `<img src=x onerror=alert("doc")>`,
    });
    await ok("PUT", `/project/${p.projectId}/branding`, {
      token: t.owner.token,
      body: {
        company: { name: `Acme <b onmouseover="x">` },
        callToAction: { enabled: true, text: "Contact <us>", url: "https://acme.test/contact" },
      },
    });
    // Links the API now refuses (400) but that a database from before the rule may hold: the site must not emit them.
    const legacy = {
      company: { name: `Acme <b onmouseover="x">`, logo: "javascript:alert(6)", url: "javascript:alert(7)" },
      callToAction: { enabled: true, text: "Contact <us>", url: "https://acme.test/contact" },
      socials: [
        { platform: "x", handle: "acme" },
        { platform: "evil", handle: "javascript:alert(8)" },
      ],
    };
    await shardD1(p.projectId)
      .prepare("UPDATE projects SET published_branding = ? WHERE id = ?")
      .bind(JSON.stringify(legacy), p.projectId)
      .run();
    await putContent(p.doc, ALL_BLOCKS);
    const home = await page(`/site/${p.slug}`);
    expect(home.status).toBe(200);
    expect(home.headers.get("content-type")).toMatch(/^text\/html/);
    expect(home.text).toMatch(/^<!DOCTYPE html>/);
    expect(home.text).toContain("Acme &lt;b onmouseover=&quot;x&quot;&gt;");
    expect(home.text).toContain('href="https://acme.test/contact"');
    expect(home.text).toContain("Contact &lt;us&gt;");
    expect(home.text).toContain('href="https://x.com/acme"');
    expect(home.text).toContain(`href="/site/${p.slug}/${p.doc}"`);
    expect(home.text).toContain(`href="/site/${p.slug}/${p.folder}"`);
    expect(home.text).not.toContain(p.hidden);
    expect(home.text).not.toContain(p.gone);
    expect(home.text).toContain('<link rel="stylesheet" href="/site/assets/site.css');
    expect(home.text).toMatch(/<title>[^<]*<\/title>/);
    expect(home.text).toContain('<meta name="description"');
    expect(home.text).toContain('<meta property="og:title"');
    const doc = await page(`/site/${p.slug}/${p.doc}`);
    expect(doc.status).toBe(200);
    const h = doc.text;
    for (const frag of [
      "<h1>Section one</h1>",
      "<h3>Deep</h3>",
      "<strong>bold</strong>",
      "<em>ital</em>",
      "<u>under</u>",
      "<s>struck</s>",
      "<code>mono</code>",
      '<a href="https://example.com/a?b=1&amp;c=2" rel="noopener noreferrer nofollow">a link</a>',
      '<a href="mailto:hr@example.com"',
      "<ul><li>b1<ul><li>nested</li></ul></li><li>b2</li></ul>",
      "<ol><li>n1</li></ol>",
      'class="checklist"',
      'aria-label="Done"',
      'aria-label="Not done"',
      "<blockquote><p>quoted</p></blockquote>",
      '<pre><code class="language-js">if (a &lt; b) { run(); }</code></pre>',
      "<table><tbody><tr><td>c11</td><td>c12</td></tr></tbody></table>",
      '<img src="https://img.example.com/x.png" alt="A chart"',
      "<figcaption>A chart</figcaption>",
      "<p>bad image</p>",
      "<p>mystery text</p>",
      "&lt;script&gt;alert(&#39;block&#39;)&lt;/script&gt;&lt;img src=x onerror=alert(5)&gt;",
      "evil link",
      "sneaky",
      "data link",
    ]) {
      expect(h, frag).toContain(frag);
    }
    // Nothing user-supplied became markup, and no unsafe URL was emitted.
    for (const text of [h, home.text]) {
      expect(text).not.toMatch(/(href|src|content)="\s*(javascript|data):/i);
      expect(text).not.toMatch(/<script|<img[^>]*onerror|<b onmouseover/i);
    }
    // A stored handle that is a non-http(s) URL is not shown at all.
    expect(h).not.toContain("alert(8)");
    expect(h).toContain("&lt;img src=x onerror=alert(&quot;doc&quot;)&gt;");
    expect(h).toContain("&lt;script&gt;alert(&quot;project&quot;)&lt;/script&gt;");
    // Safety headers.
    for (const r of [home, doc]) {
      const csp = r.headers.get("content-security-policy")!;
      expect(csp).toContain("default-src 'none'");
      expect(csp).toContain("style-src 'self'");
      expect(csp).not.toContain("unsafe-inline");
      expect(r.headers.get("x-content-type-options")).toBe("nosniff");
      expect(r.headers.get("referrer-policy")).toBe("strict-origin-when-cross-origin");
    }
    // The stylesheet.
    const css = await page("/site/assets/site.css");
    expect(css.status).toBe(200);
    expect(css.headers.get("content-type")).toMatch(/^text\/css/);
    expect(css.headers.get("cache-control")).toContain("max-age=");
    expect(css.text).toContain("font");
  });

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

  it("changes the version (ETag) on every kind of edit, and the next request shows it", async () => {
    const p = await seedPortal();
    const tok = t.owner.token;
    const path = `/site/${p.slug}/${p.doc}`;
    await putContent(p.doc, [
      {
        id: "a",
        type: "paragraph",
        props: {},
        content: [{ type: "text", text: "First words", styles: {} }],
        children: [],
      },
    ]);
    const snapshot = (await ok("POST", "/snapshot", { token: tok, body: { documentId: p.doc, name: "v1" } })).data._id;
    let etag = (await page(path)).headers.get("etag")!;
    const seen = new Set([etag]);
    const edits: [string, () => Promise<unknown>, string?][] = [
      [
        "content put",
        () =>
          putContent(p.doc, [
            {
              id: "a",
              type: "paragraph",
              props: {},
              content: [{ type: "text", text: "Second words", styles: {} }],
              children: [],
            },
          ]),
        "Second words",
      ],
      ["snapshot restore", () => ok("POST", `/snapshot/${snapshot}/restore`, { token: tok }), "First words"],
      [
        "document rename",
        () => ok("PATCH", `/document/${p.doc}`, { token: tok, body: { name: "Renamed policy" } }),
        "Renamed policy",
      ],
      [
        "another document published",
        () => ok("POST", `/document/${p.hidden}/publish`, { token: tok, body: {} }),
        "Draft salaries",
      ],
      // Back to the state before the publish: the version before it comes back too (no needless re-render).
      ["document unpublished", () => ok("DELETE", `/document/${p.hidden}/publish`, { token: tok })],
      ["folder renamed", () => ok("PATCH", `/document/${p.folder}`, { token: tok, body: { name: "Rules" } }), "Rules"],
      ["sibling deleted", () => ok("DELETE", `/document/${p.folder}`, { token: tok })],
      ["restored", () => ok("POST", `/document/${p.folder}/restore`, { token: tok }), "Rules"],
      [
        "project renamed",
        () => ok("PATCH", `/project/${p.projectId}`, { token: tok, body: { name: "Staff handbook" } }),
        "Staff handbook",
      ],
      [
        "branding",
        () => ok("PUT", `/project/${p.projectId}/branding`, { token: tok, body: { company: { name: "Brand Co" } } }),
        "Brand Co",
      ],
      [
        "entry patched",
        () => ok("PATCH", `/project/${p.projectId}/publish/${p.slug}`, { token: tok, body: { homepage: p.doc } }),
      ],
    ];
    for (const [what, edit, expectText] of edits) {
      await edit();
      const r = await page(path, { headers: { "if-none-match": etag } });
      if (what === "sibling deleted") {
        // The folder's subtree (with the document) is gone: 404 until restored.
        expect(r.status, what).toBe(404);
        continue;
      }
      expect(r.status, what).toBe(200);
      const next = r.headers.get("etag")!;
      if (what === "document unpublished") {
        expect(next, what).not.toBe(etag);
        expect(r.text).not.toContain("Draft salaries");
        etag = next;
        continue;
      }
      expect(r.headers.get("x-portal-cache"), what).toBe("miss");
      expect(seen.has(next), `${what} did not change the ETag`).toBe(false);
      seen.add(next);
      etag = next;
      if (expectText) expect(r.text, what).toContain(expectText);
    }
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
