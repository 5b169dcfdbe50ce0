/** deleteClauseReference: DELETE /clause-reference/{referenceId} (src/routes/clauseReferences/delete.ts) — its happy path, errors and request-path checks. */
import { beforeAll, describe, expect, it } from "vitest";
import { call, expectError, ok, seedTenant, type Tenant } from "../../support/harness";

describe("deleteClauseReference", () => {
  let t: Tenant;
  let _id: string;
  beforeAll(async () => {
    t = await seedTenant();
    _id = `clause-del-${Math.random().toString(36).slice(2, 8)}`;
    await ok("POST", "/clause-reference", {
      token: t.owner.token,
      body: { _id, blockId: "b", documentId: t.docId, hierarchy: "d/b" },
    });
  });

  it("is 403 for a viewer and 404 for an outsider, and the reference stays", async () => {
    expectError(await call("DELETE", `/clause-reference/${_id}`, { token: t.viewer.token }), 403, "ForbiddenError");
    expectError(await call("DELETE", `/clause-reference/${_id}`, { token: t.outsider.token }), 404, "NotFoundError");
    await ok("GET", `/clause-reference/${_id}`, { token: t.owner.token });
  });

  it("an editor deletes it: gone from reads, a second DELETE is 404, and its _id stays taken", async () => {
    expect(await ok("DELETE", `/clause-reference/${_id}`, { token: t.editor.token })).toEqual({
      data: { success: true },
    });
    expectError(await call("GET", `/clause-reference/${_id}`, { token: t.owner.token }), 404, "NotFoundError");
    expectError(await call("DELETE", `/clause-reference/${_id}`, { token: t.owner.token }), 404, "NotFoundError");
    const again = await call("POST", "/clause-reference", {
      token: t.owner.token,
      body: { _id, blockId: "b", documentId: t.docId, hierarchy: "d/b" },
    });
    expectError(again, 409, "ConflictError");
  });
});
