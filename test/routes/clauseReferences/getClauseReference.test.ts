/** getClauseReference: GET /clause-reference/{referenceId} (src/routes/clauseReferences/get.ts) — its happy path, errors and request-path checks. */
import { beforeAll, describe, expect, it } from "vitest";
import { call, expectError, ok, seedTenant, type Tenant } from "../../support/harness";

describe("getClauseReference", () => {
  let t: Tenant;
  let created: any;
  beforeAll(async () => {
    t = await seedTenant();
    const _id = `clause-get-${Math.random().toString(36).slice(2, 8)}`;
    const body = { _id, blockId: "blk-1", documentId: t.docId, hierarchy: `${t.doc2Id}/blk-2` };
    created = await ok("POST", "/clause-reference", { token: t.editor.token, body });
    // A token's first use records it (one more round trip); spend that before counting the read's own.
    await call("GET", "/me", { token: t.viewer.token });
  });

  it("answers the record to any reader of its document in one round trip", async () => {
    const res = await call("GET", `/clause-reference/${created.data._id}`, { token: t.viewer.token });
    expect(res.body).toEqual(created);
    expect(Number(res.headers.get("x-d1-round-trips"))).toBe(1);
  });

  it("is 404 for an outsider and a missing id, 400 for a malformed one", async () => {
    const outsider = await call("GET", `/clause-reference/${created.data._id}`, { token: t.outsider.token });
    expectError(outsider, 404, "NotFoundError");
    expectError(await call("GET", "/clause-reference/no-such-ref", { token: t.owner.token }), 404, "NotFoundError");
    expectError(await call("GET", "/clause-reference/bad%20id", { token: t.owner.token }), 400, "ValidationError");
  });
});
