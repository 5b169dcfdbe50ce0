import { beforeAll, describe, expect, it } from "vitest";
import { call, ok, seedTenant, type Tenant } from "../../support/harness";
import { addColumn, allRows, bulkRows, makeTable } from "../../support/tableHarness";
import { col, fn, lit, op, text } from "../../support/formula/expr";

/** The row and cell routes recompute formula cells in the same request, through the table's coordinator. */
describe("formula recalculation through the row and cell routes", () => {
  let t: Tenant;
  let tableId: string;
  let nameCol: string;
  let qty: string;
  let price: string;
  let total: string;
  let label: string;

  beforeAll(async () => {
    t = await seedTenant();
    const table = await makeTable(t.owner.token, t.projectId, "Orders");
    tableId = table.tableId;
    nameCol = table.nameColumnId;
    qty = (await addColumn(t.owner.token, tableId, "Qty", { type: "number" }))._id;
    price = (await addColumn(t.owner.token, tableId, "Price", { type: "number" }))._id;
    total = (await addColumn(t.owner.token, tableId, "Total", { type: "formula" }))._id;
    label = (await addColumn(t.owner.token, tableId, "Label", { type: "formula" }))._id;
    await ok("POST", `/table/column/${total}/computed/apply`, {
      token: t.owner.token,
      body: { description: [text("Qty * Price")], expression: op("*", col(qty), col(price)) },
    });
    // A formula over a formula: recomputed after Total, in dependency order.
    await ok("POST", `/table/column/${label}/computed/apply`, {
      token: t.owner.token,
      body: {
        description: [text("Name & total")],
        expression: op("&", op("&", col(nameCol), lit(": ")), fn("ROUND", col(total), lit(1))),
      },
    });
  });

  it("computes a new row's formula cells in the create response", async () => {
    const res = await ok("POST", `/table/${tableId}/row`, {
      token: t.editor.token,
      body: { cells: { [nameCol]: "Pens", [qty]: 3, [price]: 1.25 } },
    });
    const byColumn = Object.fromEntries(res.data.cells.map((c: any) => [c.columnId, c.data]));
    expect(byColumn[total]).toBe(3.75);
    expect(byColumn[label]).toBe("Pens: 3.8");
  });

  it("recomputes after a cell update, and refuses writes to formula cells", async () => {
    const created = await ok("POST", `/table/${tableId}/row`, {
      token: t.editor.token,
      body: { cells: { [nameCol]: "Ink", [qty]: 2, [price]: 10 } },
    });
    const rowId = created.data.row._id;
    await ok("PUT", `/table/row/${rowId}/cell/${qty}`, { token: t.editor.token, body: { data: 5 } });
    const row = (await allRows(t.owner.token, tableId)).find((r) => r._id === rowId);
    expect(row.cells[total]).toBe(50);
    expect(row.cells[label]).toBe("Ink: 50");
    const refused = await call("PUT", `/table/row/${rowId}/cell/${total}`, {
      token: t.editor.token,
      body: { data: 1 },
    });
    expect(refused.status).toBe(409);
  });

  it("computes bulk-created rows and stores spreadsheet errors as values", async () => {
    const created = await bulkRows(t.editor.token, tableId, [
      { [nameCol]: "A", [qty]: 1, [price]: 2 },
      { [nameCol]: "B", [qty]: 4 },
    ]);
    const rows = new Map((await allRows(t.owner.token, tableId)).map((r) => [r._id, r]));
    expect(rows.get(created[0]._id).cells[total]).toBe(2);
    expect(rows.get(created[1]._id).cells[total]).toBe(0);
    await ok("POST", `/table/column/${total}/computed/apply`, {
      token: t.owner.token,
      body: { description: [text("Qty / Price")], expression: op("/", col(qty), col(price)) },
    });
    const after = new Map((await allRows(t.owner.token, tableId)).map((r) => [r._id, r]));
    expect(after.get(created[1]._id).cells[total]).toEqual({ error: "#DIV/0!" });
    expect(after.get(created[0]._id).cells[total]).toBe(0.5);
  });
});
