/** A table for the bulk-write tests (docs/api-guide.md › Bulk writes): number, select and formula columns. */
import { ok, type Tenant } from "./harness";
import { addColumn, allRows, bulkRows, makeTable } from "./tableHarness";
import { col, op, text } from "./formula/expr";

export interface BulkTable {
  tableId: string;
  name: string;
  qty: string;
  price: string;
  status: string;
  total: string;
}

/** Name, Qty, Price, Status (select: open/Open, done/Done) and Total = Qty * Price, with `n` rows (Qty i, Price 2). */
export async function makeBulkTable(t: Tenant, n: number): Promise<BulkTable & { rowIds: string[] }> {
  const token = t.owner.token;
  const { tableId, nameColumnId: name } = await makeTable(token, t.projectId, "Bulk");
  const qty = (await addColumn(token, tableId, "Qty", { type: "number" }))._id;
  const price = (await addColumn(token, tableId, "Price", { type: "number" }))._id;
  const status = (
    await addColumn(token, tableId, "Status", {
      type: "select",
      selectItems: [
        { id: "open", label: "Open", color: "#0f0" },
        { id: "done", label: "Done", color: "#00f" },
      ],
    })
  )._id;
  const total = (await addColumn(token, tableId, "Total", { type: "formula" }))._id;
  await ok("POST", `/table/column/${total}/computed/apply`, {
    token,
    body: { description: [text("Qty * Price")], expression: op("*", col(qty), col(price)) },
  });
  const rowIds: string[] = [];
  for (let i = 0; i < n; i += 1000) {
    const chunk = Array.from({ length: Math.min(1000, n - i) }, (_, j) => ({
      [name]: `r${i + j}`,
      [qty]: i + j,
      [price]: 2,
    }));
    rowIds.push(...(await bulkRows(token, tableId, chunk)).map((r: any) => r._id));
  }
  return { tableId, name, qty, price, status, total, rowIds };
}

/** Every live row's cells by row id. */
export async function cellsById(token: string, tableId: string): Promise<Map<string, Record<string, unknown>>> {
  return new Map((await allRows(token, tableId)).map((r) => [r._id, r.cells]));
}
