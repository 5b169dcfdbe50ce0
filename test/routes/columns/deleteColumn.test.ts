/** deleteColumn: DELETE /table/column/{columnId} (src/routes/columns/delete.ts) — its happy path, errors and request-path checks. */
import { beforeAll, describe, expect, it } from "vitest";
import { call, expectError, ok, seedTenant, type Tenant } from "../../support/harness";
import { addColumn, addRow, makeTable } from "../../support/tableHarness";

let t: Tenant;
beforeAll(async () => {
  t = await seedTenant();
});

describe("columns", () => {
  it("soft-deletes columns: gone from E11, from rows, and their cells 404", async () => {
    const { tableId } = await makeTable(t.owner.token, t.projectId, "DelCol");
    const col = await addColumn(t.owner.token, tableId, "Gone", { type: "text" });
    const row = await addRow(t.owner.token, tableId, { [col._id]: "v" });
    const cellId = row.cells.find((c: any) => c.columnId === col._id)._id;
    await ok("GET", `/table/cell/${cellId}`, { token: t.owner.token });
    await ok("DELETE", `/table/column/${col._id}`, { token: t.editor.token });
    const cols = await ok("GET", `/table/columns/${tableId}`, { token: t.owner.token });
    expect(cols.data.map((c: any) => c._id)).not.toContain(col._id);
    const rows = await ok("GET", `/table/${tableId}/rows`, { token: t.owner.token });
    expect(Object.keys(rows.data[0].cells)).not.toContain(col._id);
    expectError(await call("GET", `/table/cell/${cellId}`, { token: t.owner.token }), 404, "NotFoundError");
    expectError(await call("DELETE", `/table/column/${col._id}`, { token: t.owner.token }), 404, "NotFoundError");
    expectError(
      await call("PATCH", `/table/column/${col._id}`, { token: t.owner.token, body: { name: "x" } }),
      404,
      "NotFoundError",
    );
    expectError(
      await call("PUT", `/table/row/${row.row._id}/cell/${col._id}`, { token: t.owner.token, body: { data: "w" } }),
      404,
      "NotFoundError",
    );
  });
});
