/** loginPublishedProject: POST /published/{publishedId}/login (src/routes/portals/published.ts) — its happy path, errors and request-path checks. */
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

describe("E14 project data", () => {
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
