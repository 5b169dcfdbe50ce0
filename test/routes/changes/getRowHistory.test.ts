/** GET /table/row/{rowId}/history (docs/api-guide.md › Changes, history and audit). */
import { beforeAll, describe, expect, it } from "vitest";
import { call, expectError, ok, seedTenant, type Tenant } from "../../support/harness";
import { makeTable } from "../../support/tableHarness";

let t: Tenant;
let b: { tableId: string; name: string; rowIds: string[] };
beforeAll(async () => {
  t = await seedTenant();
  const table = await makeTable(t.owner.token, t.projectId, "History");
  const row = await ok("POST", `/table/${table.tableId}/row`, { token: t.owner.token, body: { cells: {} } });
  b = { tableId: table.tableId, name: table.nameColumnId, rowIds: [row.data.row._id] };
});

describe("GET /table/row/{rowId}/history", () => {
  it("the row's entries newest first, paged; still readable once the row is deleted", async () => {
    const created = await ok("POST", `/table/${b.tableId}/row`, {
      token: t.editor.token,
      body: { cells: { [b.name]: "1" } },
    });
    const id = created.data.row._id;
    for (const qty of ["2", "3"])
      await ok("PATCH", `/table/row/${id}`, { token: t.editor.token, body: { cells: { [b.name]: qty } } });
    await ok("DELETE", `/table/row/${id}`, { token: t.owner.token });
    const first = await ok("GET", `/table/row/${id}/history?limit=2`, { token: t.viewer.token });
    expect(first.data.map((e: any) => [e.kind, e.changes])).toEqual([
      ["row.deleted", undefined],
      ["row.updated", { [b.name]: { before: "2", after: "3" } }],
    ]);
    expect(first.data[0].actor).toMatchObject({ type: "user", userId: t.owner.id });
    const second = await ok("GET", `/table/row/${id}/history?limit=2&cursor=${first.nextCursor}`, {
      token: t.viewer.token,
    });
    expect(second.data.map((e: any) => [e.kind, e.changes])).toEqual([
      ["row.updated", { [b.name]: { before: "1", after: "2" } }],
      ["row.created", { [b.name]: { before: null, after: "1" } }],
    ]);
    expect(second.nextCursor).toBeNull();
  });

  it("no access looks like absence: 404 for an outsider and a missing row", async () => {
    expectError(
      await call("GET", `/table/row/${b.rowIds[0]}/history`, { token: t.outsider.token }),
      404,
      "NotFoundError",
    );
    expectError(await call("GET", `/table/row/no-such-row/history`, { token: t.owner.token }), 404, "NotFoundError");
  });
});
