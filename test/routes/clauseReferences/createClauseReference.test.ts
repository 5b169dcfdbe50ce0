/** createClauseReference: POST /clause-reference (src/routes/clauseReferences/create.ts) — its happy path, errors and request-path checks. */
import { beforeAll, describe, expect, it } from "vitest";
import { call, expectError, ok, seedTenant, type Tenant } from "../../support/harness";

/** Caller-chosen ids are global; a per-run suffix keeps this file independent of any other. */
const sfx = Math.random().toString(36).slice(2, 8);
let t: Tenant;
beforeAll(async () => {
  t = await seedTenant();
});

describe("clause references", () => {
  it("E4 creates with the caller's _id, then reads, lists and deletes", async () => {
    const body = { _id: `clause-1-${sfx}`, blockId: "blk-9", documentId: t.docId, hierarchy: `${t.doc2Id}/blk-2/sub` };
    const created = await ok("POST", "/clause-reference", { token: t.editor.token, body });
    expect(created.data).toEqual({
      _id: `clause-1-${sfx}`,
      blockId: "blk-9",
      documentId: t.docId,
      workspaceId: t.workspaceId,
      hierarchy: `${t.doc2Id}/blk-2/sub`,
      originId: "",
      createdAt: expect.any(Number),
      updatedAt: expect.any(Number),
      isDeleted: false,
    });
    expect(await ok("GET", `/clause-reference/clause-1-${sfx}`, { token: t.viewer.token })).toEqual(created);
    const second = await ok("POST", "/clause-reference", {
      token: t.owner.token,
      body: { ...body, _id: `clause-2-${sfx}`, hierarchy: "a/b", workspaceId: "x", isDeleted: true },
    });
    expect(second.data.isDeleted).toBe(false);
    const list = await ok("GET", `/document/${t.docId}/clause-references`, { token: t.viewer.token });
    expect(list.data.map((r: any) => r._id)).toEqual([`clause-1-${sfx}`, `clause-2-${sfx}`]);

    expectError(await call("POST", "/clause-reference", { token: t.owner.token, body }), 409, "ConflictError");
    expect(await ok("DELETE", `/clause-reference/clause-1-${sfx}`, { token: t.editor.token })).toEqual({
      data: { success: true },
    });
    expectError(await call("GET", `/clause-reference/clause-1-${sfx}`, { token: t.owner.token }), 404, "NotFoundError");
    expectError(
      await call("DELETE", `/clause-reference/clause-1-${sfx}`, { token: t.owner.token }),
      404,
      "NotFoundError",
    );
    expect(
      (await ok("GET", `/document/${t.docId}/clause-references`, { token: t.owner.token })).data.map((r: any) => r._id),
    ).toEqual([`clause-2-${sfx}`]);
    // A deleted reference's _id stays taken.
    expectError(await call("POST", "/clause-reference", { token: t.owner.token, body }), 409, "ConflictError");
  });

  it("validates the body, hierarchy included", async () => {
    const good = { _id: `c-valid-${sfx}`, blockId: "b", documentId: t.docId, hierarchy: "d/b" };
    for (const body of [
      { ...good, _id: undefined },
      { ...good, _id: "has space" },
      { ...good, blockId: "" },
      { ...good, hierarchy: "only-one" },
      { ...good, hierarchy: "a//b" },
      { ...good, hierarchy: "/a/b" },
      { ...good, hierarchy: "a/b/" },
      { ...good, hierarchy: 5 },
      { ...good, extra: true },
    ]) {
      expectError(await call("POST", "/clause-reference", { token: t.owner.token, body }), 400, "ValidationError");
    }
    expectError(await call("GET", "/clause-reference/bad%20id", { token: t.owner.token }), 400, "ValidationError");
  });

  it("follows its document's access", async () => {
    const body = { _id: `c-access-${sfx}`, blockId: "b", documentId: t.docId, hierarchy: "d/b" };
    expectError(await call("POST", "/clause-reference", { token: t.viewer.token, body }), 403, "ForbiddenError");
    expectError(await call("POST", "/clause-reference", { token: t.outsider.token, body }), 404, "NotFoundError");
    expectError(
      await call("POST", "/clause-reference", { token: t.owner.token, body: { ...body, documentId: "01NOPE" } }),
      404,
      "NotFoundError",
    );
    await ok("POST", "/clause-reference", { token: t.owner.token, body });
    expectError(
      await call("GET", `/clause-reference/c-access-${sfx}`, { token: t.outsider.token }),
      404,
      "NotFoundError",
    );
    expectError(
      await call("DELETE", `/clause-reference/c-access-${sfx}`, { token: t.viewer.token }),
      403,
      "ForbiddenError",
    );
    expectError(
      await call("DELETE", `/clause-reference/c-access-${sfx}`, { token: t.outsider.token }),
      404,
      "NotFoundError",
    );
    expectError(
      await call("GET", `/document/${t.docId}/clause-references`, { token: t.outsider.token }),
      404,
      "NotFoundError",
    );
    expectError(
      await call("GET", "/document/01NOPE/clause-references", { token: t.owner.token }),
      404,
      "NotFoundError",
    );
  });
});
