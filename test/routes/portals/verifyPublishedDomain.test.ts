/** verifyPublishedDomain: POST /project/{id}/publish/{slug}/verify-domain (src/routes/portals/publish.ts) — its happy path, errors and request-path checks. */
/**
 * Portal domains belong to their owner (docs/api-guide.md, "Published portals"): never one of the service's own host
 * names (SERVICE_HOSTNAMES, whatever the request's Host), served only once a TXT record proves ownership (checked
 * through DNS over HTTPS; the tests' resolver is test/setup/doh-server.ts), and unique among verified domains, so a
 * pending claim cannot squat a domain its real owner then verifies.
 */
import { SELF } from "cloudflare:test";
import { beforeAll, describe, expect, it } from "vitest";
import { call, expectError, ok, seedTenant, type Tenant } from "../../support/harness";
import { entryOf, publishTxt, verifyDomain } from "../../support/portalDomains";

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
    await ok("POST", "/project", { token: tenant.owner.token, body: { workspaceId: tenant.workspaceId, name: "Docs" } })
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
  it("serves a domain only after its TXT record is verified; a changed domain starts over", async () => {
    const id = await project(t);
    const slug = unique("v");
    const domain = `${unique("docs")}.example.com`;
    const published = (await ok("POST", `/project/${id}/publish`, { token: t.owner.token, body: { slug, domain } }))
      .data;
    const v = entryOf(published, slug).domainVerification!;
    expect(v).toEqual({
      status: "pending",
      txtName: `_workspace-verify.${domain}`,
      txtValue: expect.stringMatching(/^workspace-verify=[A-Za-z0-9_-]{20,}$/),
    });
    // Pending: neither the site nor the bearer reads answer for the domain.
    const home = await fetchAs(domain, "/");
    expect(home.headers.get("content-type") ?? "").not.toMatch(/text\/html/);
    await home.arrayBuffer();
    expect((await fetchAs(domain, "/published/home/branding", t.outsider.token)).status).toBe(404);
    // No record, or the wrong one: 422 and still pending.
    const verify = () =>
      call("POST", `/project/${id}/publish/${slug}/verify-domain`, { token: t.owner.token, body: {} });
    expectError(await verify(), 422, "UnprocessableEntityError");
    await publishTxt(v.txtName, "workspace-verify=someone-elses-token-0000000000");
    expectError(await verify(), 422, "UnprocessableEntityError");
    // A viewer may not verify; another tenant does not see the project.
    expectError(
      await call("POST", `/project/${id}/publish/${slug}/verify-domain`, { token: t.viewer.token, body: {} }),
      403,
      "ForbiddenError",
    );
    expectError(
      await call("POST", `/project/${id}/publish/${slug}/verify-domain`, { token: other.owner.token, body: {} }),
      404,
      "NotFoundError",
    );
    await publishTxt(v.txtName, v.txtValue);
    const verified = (await verify()).body.data;
    expect(entryOf(verified, slug).domainVerification).toEqual({ ...v, status: "verified" });
    const served = await fetchAs(domain, "/");
    expect(served.status).toBe(200);
    expect(await served.text()).toContain("Welcome page");
    expect((await fetchAs(domain, "/published/home/project", t.outsider.token)).status).toBe(200);
    // Moving the entry to another domain needs that domain's own proof; the old one is no longer served.
    const next = `${unique("docs2")}.example.com`;
    const moved = (
      await ok("PATCH", `/project/${id}/publish/${slug}`, { token: t.owner.token, body: { domain: next } })
    ).data;
    const v2 = entryOf(moved, slug).domainVerification!;
    expect(v2.status).toBe("pending");
    expect(v2.txtName).toBe(`_workspace-verify.${next}`);
    expect(v2.txtValue).not.toBe(v.txtValue);
    expect((await fetchAs(next, "/published/home/branding", t.outsider.token)).status).toBe(404);
    expect((await fetchAs(domain, "/published/home/branding", t.outsider.token)).status).toBe(404);
    // Sending the same domain back does not reset a verification.
    await verifyDomain(t.owner.token, id, slug);
    const same = (
      await ok("PATCH", `/project/${id}/publish/${slug}`, {
        token: t.owner.token,
        body: { domain: next, allowIndexing: true },
      })
    ).data;
    expect(entryOf(same, slug).domainVerification!.status).toBe("verified");
    // An entry without a domain has nothing to verify.
    const bare = unique("bare");
    await ok("POST", `/project/${id}/publish`, { token: t.owner.token, body: { slug: bare } });
    expectError(
      await call("POST", `/project/${id}/publish/${bare}/verify-domain`, { token: t.owner.token, body: {} }),
      422,
      "UnprocessableEntityError",
    );
  });
});
