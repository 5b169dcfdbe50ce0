/** unpublishProject: DELETE /project/{id}/publish/{slug} (src/routes/portals/publish.ts) — its happy path, errors and request-path checks. */
import { beforeAll, describe, expect, it } from "vitest";
import { call, expectError, ok, seedTenant, type Tenant } from "../../support/harness";

describe("unpublishProject", () => {
  let t: Tenant;
  const slug = `off-${Date.now().toString(36)}-${Math.random().toString(36).slice(2, 6)}`;
  beforeAll(async () => {
    t = await seedTenant();
    await ok("POST", `/project/${t.projectId}/publish`, { token: t.owner.token, body: { slug } });
  });

  it("needs a project admin: editor and viewer 403, outsider 404, and the entry stays", async () => {
    for (const [token, status, error] of [
      [t.editor.token, 403, "ForbiddenError"],
      [t.viewer.token, 403, "ForbiddenError"],
      [t.outsider.token, 404, "NotFoundError"],
    ] as const)
      expectError(await call("DELETE", `/project/${t.projectId}/publish/${slug}`, { token }), status, error);
    expect((await call("GET", `/site/${slug}`)).status).toBe(200);
  });

  it("removes the entry: the reader site stops serving it, and a second DELETE is 404", async () => {
    const after = await ok("DELETE", `/project/${t.projectId}/publish/${slug}`, { token: t.owner.token });
    expect(after.data.published.map((e: { slug: string }) => e.slug)).not.toContain(slug);
    expect((await call("GET", `/site/${slug}`)).status).toBe(404);
    expectError(
      await call("DELETE", `/project/${t.projectId}/publish/${slug}`, { token: t.owner.token }),
      404,
      "NotFoundError",
    );
  });
});
