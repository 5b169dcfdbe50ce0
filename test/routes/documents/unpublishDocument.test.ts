/** unpublishDocument: DELETE /document/{documentId}/publish (src/routes/documents/publish.ts) — its happy path, errors and request-path checks. */
import { beforeAll, describe, expect, it } from "vitest";
import { call, expectError, ok, seedTenant, type Tenant } from "../../support/harness";

describe("unpublishDocument", () => {
  let t: Tenant;
  beforeAll(async () => {
    t = await seedTenant();
  });

  it("clears isPublished and publishedSettings; unpublishing again changes nothing", async () => {
    await ok("POST", `/document/${t.docId}/publish`, { token: t.owner.token, body: { domainSlug: "off" } });
    const off = await ok("DELETE", `/document/${t.docId}/publish`, { token: t.editor.token });
    expect(off.data).toMatchObject({ _id: t.docId, isPublished: false, publishedSettings: null });
    const read = await ok("GET", `/document/${t.docId}`, { token: t.viewer.token });
    expect(read.data).toMatchObject({ isPublished: false, publishedSettings: null });
    const again = await ok("DELETE", `/document/${t.docId}/publish`, { token: t.owner.token });
    expect(again.data).toMatchObject({ isPublished: false, publishedSettings: null });
  });

  it("is 403 for a viewer, 404 for an outsider and a missing document", async () => {
    expectError(await call("DELETE", `/document/${t.docId}/publish`, { token: t.viewer.token }), 403, "ForbiddenError");
    expectError(
      await call("DELETE", `/document/${t.docId}/publish`, { token: t.outsider.token }),
      404,
      "NotFoundError",
    );
    expectError(await call("DELETE", "/document/01NOPE/publish", { token: t.owner.token }), 404, "NotFoundError");
  });
});
