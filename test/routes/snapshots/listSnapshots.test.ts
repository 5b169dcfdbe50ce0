/** listSnapshots: GET /snapshot/all/{documentId} (src/routes/snapshots/list.ts) — its happy path, errors and request-path checks. */
import { beforeAll, describe, expect, it } from "vitest";
import { call, expectError, ok, seedTenant, type Tenant } from "../../support/harness";

describe("listSnapshots", () => {
  let t: Tenant;
  let documentId: string;
  beforeAll(async () => {
    t = await seedTenant();
    documentId = (
      await ok("POST", "/document", {
        token: t.owner.token,
        body: { projectId: t.projectId, name: "Listed", type: "DOCUMENT" },
      })
    ).data._id;
  });

  it("lists a document's snapshots newest first, without their blocks, to any reader", async () => {
    expect(await ok("GET", `/snapshot/all/${documentId}`, { token: t.viewer.token })).toEqual({ data: [] });
    const first = await ok("POST", "/snapshot", { token: t.owner.token, body: { documentId, name: "First" } });
    const second = await ok("POST", "/snapshot", { token: t.editor.token, body: { documentId, name: "Second" } });
    const list = await ok("GET", `/snapshot/all/${documentId}`, { token: t.viewer.token });
    expect(list.data.map((s: any) => s._id)).toEqual([second.data._id, first.data._id]);
    expect(list.data[0]).not.toHaveProperty("blocks");
  });

  it("is 404 for an outsider, a missing document and a deleted one", async () => {
    expectError(await call("GET", `/snapshot/all/${documentId}`, { token: t.outsider.token }), 404, "NotFoundError");
    expectError(await call("GET", "/snapshot/all/missing", { token: t.owner.token }), 404, "NotFoundError");
    await ok("DELETE", `/document/${documentId}`, { token: t.owner.token });
    expectError(await call("GET", `/snapshot/all/${documentId}`, { token: t.owner.token }), 404, "NotFoundError");
  });
});
