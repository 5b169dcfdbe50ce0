/** GET /table/{tableId}/aggregate (docs/api-guide.md › Views and aggregates). */
import { beforeAll, describe, expect, it } from "vitest";
import { call, expectError, ok, registerUser, seedTenant, type Tenant } from "../../support/harness";
import { addColumn, bulkRows, makeTable } from "../../support/tableHarness";

let t: Tenant;
let tableId: string;
let amount: string;
let status: string;

beforeAll(async () => {
  t = await seedTenant();
  const table = await makeTable(t.owner.token, t.projectId, "Sales");
  tableId = table.tableId;
  amount = (await addColumn(t.owner.token, tableId, "amount", { type: "number" }))._id;
  status = (
    await addColumn(t.owner.token, tableId, "status", {
      type: "select",
      selectItems: [
        { id: "open", label: "Open", color: "" },
        { id: "paid", label: "Paid", color: "" },
      ],
    })
  )._id;
  await bulkRows(t.owner.token, tableId, [
    { [amount]: 10, [status]: "open" },
    { [amount]: 30, [status]: "open" },
    { [amount]: 5, [status]: "paid" },
    { [status]: "paid" },
    { [amount]: 1 },
  ]);
});

describe("aggregateRows", () => {
  it("totals without groupBy in one entry", async () => {
    const res = await ok("GET", `/table/${tableId}/aggregate`, {
      token: t.viewer.token,
      query: { metrics: `count,sum:${amount},avg:${amount},min:${amount},max:${amount},countEmpty:${amount}` },
    });
    expect(res.data).toEqual([
      {
        group: {},
        metrics: {
          count: 5,
          [`sum:${amount}`]: 46,
          [`avg:${amount}`]: 11.5,
          [`min:${amount}`]: 1,
          [`max:${amount}`]: 30,
          [`countEmpty:${amount}`]: 1,
        },
      },
    ]);
  });

  it("groups by a select's item id, empty group last, under a filter", async () => {
    const res = await ok("GET", `/table/${tableId}/aggregate`, {
      token: t.viewer.token,
      query: { metrics: `count,sum:${amount}`, groupBy: status },
    });
    expect(res.data).toEqual([
      { group: { [status]: "open" }, metrics: { count: 2, [`sum:${amount}`]: 40 } },
      { group: { [status]: "paid" }, metrics: { count: 2, [`sum:${amount}`]: 5 } },
      { group: { [status]: null }, metrics: { count: 1, [`sum:${amount}`]: 1 } },
    ]);
    const filtered = await ok("GET", `/table/${tableId}/aggregate`, {
      token: t.viewer.token,
      query: {
        metrics: "count",
        groupBy: status,
        filter: JSON.stringify({ and: [{ columnId: amount, op: "gt", value: 9 }] }),
      },
    });
    expect(filtered.data).toEqual([{ group: { [status]: "open" }, metrics: { count: 2 } }]);
  });

  it("bad metrics, groupBy or filter are 422 with paths; strangers get 404", async () => {
    for (const [query, path] of [
      [{ metrics: "median:x" }, "metrics.0"],
      [{ metrics: "count", groupBy: "nope" }, "groupBy.0"],
      [
        { metrics: "count", filter: JSON.stringify({ or: [{ columnId: amount, op: "is", value: 1 }] }) },
        "filter.or.0.op",
      ],
    ] as const) {
      const res = await call("GET", `/table/${tableId}/aggregate`, { token: t.viewer.token, query });
      expectError(res, 422, "UnprocessableEntityError");
      expect(res.body.details[0].path).toBe(path);
    }
    const stranger = await registerUser();
    expectError(
      await call("GET", `/table/${tableId}/aggregate`, { token: stranger.token, query: { metrics: "count" } }),
      404,
      "NotFoundError",
    );
  });
});
