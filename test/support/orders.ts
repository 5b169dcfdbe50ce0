/** The "Orders" table (Qty, Price, Total = Qty * Price) the table, column, row and cell operation tests share. */
import { col, fn, lit, op, text } from "./formula/expr";
import { ok, seedTenant, type Tenant } from "./harness";
import { addColumn, addRow, bulkRows, makeTable } from "./tableHarness";

/** A fresh tenant's Orders table with one row (Pens, Qty 2, Price 3); `row` is the created row with its cells. */
export async function ordersFixture() {
  const t: Tenant = await seedTenant();
  const tok = t.owner.token;
  const table = await makeTable(tok, t.projectId, "Orders");
  const tableId = table.tableId;
  const nameCol = table.nameColumnId;
  const qty = (await addColumn(tok, tableId, "Qty", { type: "number" }))._id as string;
  const price = (await addColumn(tok, tableId, "Price", { type: "number" }))._id as string;
  const total = (await addColumn(tok, tableId, "Total", { type: "formula" }))._id as string;
  await ok("POST", `/table/column/${total}/computed/apply`, {
    token: tok,
    body: { description: [text("Qty * Price")], expression: op("*", col(qty), col(price)) },
  });
  const row = await addRow(tok, tableId, { [nameCol]: "Pens", [qty]: 2, [price]: 3 });
  return { t, tok, tableId, nameCol, qty, price, total, row };
}

/** A fresh tenant's empty Orders table where Label = Name & ": " & ROUND(Total, 1), a formula over a formula. */
export async function formulaOrdersFixture() {
  const t: Tenant = await seedTenant();
  const table = await makeTable(t.owner.token, t.projectId, "Orders");
  const tableId = table.tableId;
  const nameCol = table.nameColumnId;
  const qty = (await addColumn(t.owner.token, tableId, "Qty", { type: "number" }))._id as string;
  const price = (await addColumn(t.owner.token, tableId, "Price", { type: "number" }))._id as string;
  const total = (await addColumn(t.owner.token, tableId, "Total", { type: "formula" }))._id as string;
  const label = (await addColumn(t.owner.token, tableId, "Label", { type: "formula" }))._id as string;
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
  return { t, tableId, nameCol, qty, price, total, label };
}

/** A fresh tenant's Orders table (Price, Qty, Ordered on, Done) with two rows, for formulas typed as text. */
export async function textFormulaOrdersFixture() {
  const t: Tenant = await seedTenant();
  const table = await makeTable(t.owner.token, t.projectId, "Orders");
  const tableId = table.tableId;
  const nameCol = table.nameColumnId;
  const price = (await addColumn(t.owner.token, tableId, "Price", { type: "number" }))._id as string;
  const qty = (await addColumn(t.owner.token, tableId, "Qty", { type: "number" }))._id as string;
  const when = (await addColumn(t.owner.token, tableId, "Ordered on", { type: "date" }))._id as string;
  await addColumn(t.owner.token, tableId, "Done", { type: "checkbox" });
  await bulkRows(t.owner.token, tableId, [
    { [nameCol]: "Pens", [price]: 1.25, [qty]: 4, [when]: Date.UTC(2024, 0, 31) },
    { [nameCol]: "Ink", [price]: 10, [qty]: 2 },
  ]);
  return { t, tableId, nameCol, price, qty, when };
}
