/** Select and multiSelect values by label in every row and cell write (docs/api-guide.md › Bulk writes). */
import { beforeAll, describe, expect, it } from "vitest";
import { call, expectError, ok, seedTenant, type Tenant } from "../../support/harness";
import { allRows, makeTypedTable } from "../../support/tableHarness";

let t: Tenant;
let tableId: string;
let col: Record<string, string>;
beforeAll(async () => {
  t = await seedTenant();
  ({ tableId, col } = await makeTypedTable(t.owner.token, t.projectId));
});

describe("select values by label", () => {
  it("POST …/row, POST …/rows and PUT …/cell store the item id for a label", async () => {
    const one = await ok("POST", `/table/${tableId}/row`, {
      token: t.editor.token,
      body: { cells: { [col.select!]: "Red", [col.multiSelect!]: ["Blue", "red"] } },
    });
    const byColumn = Object.fromEntries(one.data.cells.map((c: any) => [c.columnId, c.data]));
    expect(byColumn[col.select!]).toBe("red");
    expect(byColumn[col.multiSelect!]).toEqual(["blue", "red"]);
    const many = await ok("POST", `/table/${tableId}/rows`, {
      token: t.editor.token,
      body: { rows: [{ cells: { [col.select!]: "Blue" } }, { cells: { [col.multiSelect!]: ["Red"] } }] },
    });
    expect(many.data.rows[0].cells[col.select!]).toBe("blue");
    expect(many.data.rows[1].cells[col.multiSelect!]).toEqual(["red"]);
    const rowId = one.data.row._id;
    const cell = await ok("PUT", `/table/row/${rowId}/cell/${col.select!}`, {
      token: t.editor.token,
      body: { data: "Blue" },
    });
    expect(cell.data.data).toBe("blue");
    const stored = (await allRows(t.viewer.token, tableId)).find((r) => r._id === rowId);
    expect(stored.cells[col.select!]).toBe("blue");
  });

  it("a label that names no item is 400 as an unknown id is; a repeated item by id and label is 400", async () => {
    expectError(
      await call("POST", `/table/${tableId}/row`, {
        token: t.editor.token,
        body: { cells: { [col.select!]: "Green" } },
      }),
      400,
      "ValidationError",
    );
    expectError(
      await call("POST", `/table/${tableId}/row`, {
        token: t.editor.token,
        body: { cells: { [col.multiSelect!]: ["Red", "red"] } },
      }),
      400,
      "ValidationError",
    );
  });
});
