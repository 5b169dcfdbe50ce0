import { beforeAll, describe, expect, it } from "vitest";
import { ok, seedTenant, type Tenant } from "../../support/harness";
import { addRow, makeTypedTable } from "../../support/tableHarness";

let t: Tenant;
beforeAll(async () => {
  t = await seedTenant();
});

/** PUT /table/row/{rowId}/cell/{columnId} and GET /table/cell/{id}; their guards are with the rows' (test/routes/rows/rows.test.ts). */
describe("cells", () => {
  it("upserts one cell, clears it with null, and touches the row", async () => {
    const { tableId, col } = await makeTypedTable(t.owner.token, t.projectId);
    const { row } = await addRow(t.owner.token, tableId);
    const first = await ok("PUT", `/table/row/${row._id}/cell/${col.multiSelect}`, {
      token: t.editor.token,
      body: { data: ["red"] },
    });
    expect(first.data).toMatchObject({
      rowId: row._id,
      columnId: col.multiSelect,
      tableId,
      data: ["red"],
      isIdentifier: false,
    });
    const second = await ok("PUT", `/table/row/${row._id}/cell/${col.multiSelect}`, {
      token: t.editor.token,
      body: { ...first.data, data: ["blue", "red"] },
    });
    expect(second.data._id).toBe(first.data._id);
    expect(second.data.data).toEqual(["blue", "red"]);
    expect(second.data.createdAt).toBe(first.data.createdAt);
    const ident = await ok("PUT", `/table/row/${row._id}/cell/${col.identifier}`, {
      token: t.editor.token,
      body: { data: "Named" },
    });
    expect(ident.data.isIdentifier).toBe(true);
    const cleared = await ok("PUT", `/table/row/${row._id}/cell/${col.multiSelect}`, {
      token: t.editor.token,
      body: { data: null },
    });
    expect(cleared.data.data).toBeNull();
    expect((await ok("GET", `/table/cell/${first.data._id}`, { token: t.owner.token })).data.data).toBeNull();
    const got = await ok("GET", `/table/row/${row._id}`, { token: t.owner.token });
    expect(got.data.updatedAt).toBeGreaterThanOrEqual(row.updatedAt);
    const listed = await ok("GET", `/table/${tableId}/rows`, { token: t.owner.token });
    expect(listed.data[0].cells[col.identifier!]).toBe("Named");
    expect(listed.data[0].cells[col.multiSelect!]).toBeNull();
  });
});
