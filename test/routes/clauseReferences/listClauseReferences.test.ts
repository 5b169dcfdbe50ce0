/** listClauseReferences: GET /document/{documentId}/clause-references (src/routes/clauseReferences/listByDocument.ts) — its happy path, errors and request-path checks. */
import { beforeAll, describe, expect, it } from "vitest";
import { call, expectError, ok, seedTenant, type Tenant } from "../../support/harness";

describe("listClauseReferences", () => {
  let t: Tenant;
  const sfx = Math.random().toString(36).slice(2, 8);
  beforeAll(async () => {
    t = await seedTenant();
    // A token's first use records it (one more round trip); spend that before counting the read's own.
    await call("GET", "/me", { token: t.viewer.token });
  });

  it("lists a document's live references in creation order, in one round trip", async () => {
    expect(await ok("GET", `/document/${t.doc2Id}/clause-references`, { token: t.viewer.token })).toEqual({ data: [] });
    const ids = [`clause-a-${sfx}`, `clause-b-${sfx}`, `clause-c-${sfx}`];
    for (const _id of ids)
      await ok("POST", "/clause-reference", {
        token: t.owner.token,
        body: { _id, blockId: "b", documentId: t.doc2Id, hierarchy: "d/b" },
      });
    await ok("DELETE", `/clause-reference/${ids[1]}`, { token: t.owner.token });
    const res = await call("GET", `/document/${t.doc2Id}/clause-references`, { token: t.viewer.token });
    expect(res.body.data.map((r: any) => r._id)).toEqual([ids[0], ids[2]]);
    expect(Number(res.headers.get("x-d1-round-trips"))).toBe(1);
  });

  it("is 404 for an outsider and a missing document", async () => {
    const outsider = await call("GET", `/document/${t.doc2Id}/clause-references`, { token: t.outsider.token });
    expectError(outsider, 404, "NotFoundError");
    expectError(
      await call("GET", "/document/01NOPE/clause-references", { token: t.owner.token }),
      404,
      "NotFoundError",
    );
  });
});
