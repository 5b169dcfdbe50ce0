/** getCell: GET /table/cell/{cellId} (src/routes/cells/get.ts) — its happy path, errors and request-path checks. */
import { beforeAll, describe, expect, it } from "vitest";
import { call, expectError, seedTenant, type Tenant } from "../../support/harness";
import { addRow, makeTable } from "../../support/tableHarness";

describe("getCell", () => {
  let t: Tenant;
  let cell: any;
  beforeAll(async () => {
    t = await seedTenant();
    const { tableId, nameColumnId } = await makeTable(t.owner.token, t.projectId, "Cells");
    cell = (await addRow(t.owner.token, tableId, { [nameColumnId]: "Pens" })).cells.find(
      (c: any) => c.columnId === nameColumnId,
    );
    // A token's first use records it (one more round trip); spend that before counting the read's own.
    await call("GET", "/me", { token: t.viewer.token });
  });

  it("answers the stored Cell record to a reader in one round trip, with an ETag that answers 304", async () => {
    const res = await call("GET", `/table/cell/${cell._id}`, { token: t.viewer.token });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ data: cell });
    expect(Number(res.headers.get("x-d1-round-trips"))).toBe(1);
    const again = await call("GET", `/table/cell/${cell._id}`, {
      token: t.viewer.token,
      headers: { "if-none-match": res.headers.get("etag")! },
    });
    expect(again.status).toBe(304);
  });

  it("is 404 for an outsider and a missing cell, 400 for a malformed id, 401 without a token", async () => {
    expectError(await call("GET", `/table/cell/${cell._id}`, { token: t.outsider.token }), 404, "NotFoundError");
    expectError(await call("GET", "/table/cell/01NOPE", { token: t.owner.token }), 404, "NotFoundError");
    expectError(await call("GET", "/table/cell/bad%20id", { token: t.owner.token }), 400, "ValidationError");
    expect((await call("GET", `/table/cell/${cell._id}`)).status).toBe(401);
  });
});
