/** getRow: GET /table/row/{rowId} (src/routes/rows/get.ts) — its happy path, errors and request-path checks. */
import { beforeAll, describe, expect, it } from "vitest";
import { call, expectError, ok, seedTenant, type Tenant } from "../../support/harness";
import { addRow, makeTable } from "../../support/tableHarness";

describe("getRow", () => {
  let t: Tenant;
  let row: any;
  beforeAll(async () => {
    t = await seedTenant();
    const { tableId, nameColumnId } = await makeTable(t.owner.token, t.projectId, "Rows");
    row = (await addRow(t.owner.token, tableId, { [nameColumnId]: "Pens" })).row;
    // A token's first use records it (one more round trip); spend that before counting the read's own.
    await call("GET", "/me", { token: t.viewer.token });
  });

  it("answers the Row record to a reader in one round trip, with an ETag that answers 304", async () => {
    const res = await call("GET", `/table/row/${row._id}`, { token: t.viewer.token });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ data: row });
    expect(Number(res.headers.get("x-d1-round-trips"))).toBe(1);
    const again = await call("GET", `/table/row/${row._id}`, {
      token: t.viewer.token,
      headers: { "if-none-match": res.headers.get("etag")! },
    });
    expect(again.status).toBe(304);
  });

  it("is 404 for an outsider, a missing row and a deleted one; 400 for a malformed id", async () => {
    expectError(await call("GET", `/table/row/${row._id}`, { token: t.outsider.token }), 404, "NotFoundError");
    expectError(await call("GET", "/table/row/01NOPE", { token: t.owner.token }), 404, "NotFoundError");
    expectError(await call("GET", "/table/row/bad%20id", { token: t.owner.token }), 400, "ValidationError");
    await ok("DELETE", `/table/row/${row._id}`, { token: t.owner.token });
    expectError(await call("GET", `/table/row/${row._id}`, { token: t.owner.token }), 404, "NotFoundError");
  });
});
