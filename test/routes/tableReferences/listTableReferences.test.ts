/** listTableReferences: GET /document/{documentId}/table-references (src/routes/tableReferences/listByDocument.ts) — its happy path, errors and request-path checks. */
import { beforeAll, describe, expect, it } from "vitest";
import { call, expectError, ok, seedTenant, type Tenant } from "../../support/harness";
import { makeTable, type TestTable } from "../../support/tableHarness";

describe("listTableReferences", () => {
  let t: Tenant;
  let table: TestTable;
  beforeAll(async () => {
    t = await seedTenant();
    table = await makeTable(t.owner.token, t.projectId, "Listed");
    // A token's first use records it (one more round trip); spend that before counting the read's own.
    await call("GET", "/me", { token: t.viewer.token });
  });

  it("lists a document's live references in creation order, in one round trip", async () => {
    expect(await ok("GET", `/document/${t.doc2Id}/table-references`, { token: t.viewer.token })).toEqual({ data: [] });
    const body = {
      documentId: t.doc2Id,
      tableId: table.tableId,
      columnId: table.nameColumnId,
      relatedRowId: null,
      type: "global",
    };
    const ids: string[] = [];
    for (let i = 0; i < 3; i++)
      ids.push((await ok("POST", "/table/reference", { token: t.owner.token, body })).data._id);
    await ok("DELETE", `/table/reference/${ids[1]}`, { token: t.owner.token });
    const res = await call("GET", `/document/${t.doc2Id}/table-references`, { token: t.viewer.token });
    expect(res.body.data.map((r: any) => r._id)).toEqual([ids[0], ids[2]]);
    expect(Number(res.headers.get("x-d1-round-trips"))).toBe(1);
  });

  it("is 404 for an outsider and a missing document", async () => {
    const outsider = await call("GET", `/document/${t.doc2Id}/table-references`, { token: t.outsider.token });
    expectError(outsider, 404, "NotFoundError");
    expectError(await call("GET", "/document/01NOPE/table-references", { token: t.owner.token }), 404, "NotFoundError");
  });
});
