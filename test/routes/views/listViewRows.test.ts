/** listViewRows: GET /table/view/{viewId}/rows (src/routes/views/rows.ts) — its happy path, errors and request-path checks. */
/** Views (docs/api-guide.md › Views and aggregates): CRUD, ETag/If-Match, Idempotency-Key, rows, warnings, access. */
import { beforeAll, describe, expect, it } from "vitest";
import { ok, seedTenant, type Tenant } from "../../support/harness";
import { addColumn } from "../../support/tableHarness";
import { invoicesTable } from "../../support/views";

let t: Tenant;
let tableId: string;
let nameCol: string;
let amount: string;

beforeAll(async () => {
  t = await seedTenant();
  ({ tableId, nameCol, amount } = await invoicesTable(t.owner.token, t.projectId));
});

const big = () => ({ and: [{ columnId: amount, op: "gt", value: 1000 }] });

describe("views", () => {
  it("drops conditions on a deleted column and says so", async () => {
    const col = (await addColumn(t.owner.token, tableId, "temp", { type: "number" }))._id;
    const view = (
      await ok("POST", `/table/${tableId}/view`, {
        token: t.owner.token,
        body: { name: "Temp", filter: { and: [...big().and, { columnId: col, op: "eq", value: 1 }] } },
      })
    ).data;
    expect((await ok("GET", `/table/view/${view._id}/rows`, { token: t.viewer.token })).data).toEqual([]);
    await ok("DELETE", `/table/column/${col}`, { token: t.owner.token });
    const rows = await ok("GET", `/table/view/${view._id}/rows`, { token: t.viewer.token });
    expect(rows.data.map((r: any) => r.cells[nameCol])).toEqual(["a", "c"]);
    expect(rows.warnings).toEqual([{ columnId: col, message: expect.any(String) }]);
    expect((await ok("GET", `/table/view/${view._id}`, { token: t.viewer.token })).data.warnings).toHaveLength(1);
  });
});
