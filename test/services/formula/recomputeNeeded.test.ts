/**
 * When a bulk write skips its table's formula coordinator (src/services/tables/recompute.ts, computeNeededStatement):
 * only when the table has no formula, no table looks into it and no computation of its cells is under way. Each of
 * the three is shown to send the write through the coordinator.
 */
import { beforeAll, describe, expect, it } from "vitest";
import { ok, seedTenant, type Tenant } from "../../support/harness";
import { shardD1 } from "../../support/shards";
import { addColumn, allRows, bulkRows, makeTable } from "../../support/tableHarness";
import { col, lit, op } from "../../support/formula/expr";
import { computeNeededStatement } from "../../../src/services/tables/recompute";
import { markBusyStatement } from "../../../src/services/formula/queries";

let t: Tenant;
beforeAll(async () => {
  t = await seedTenant();
});

const needed = async (tableId: string, now = Date.now()) =>
  Boolean((await computeNeededStatement(shardD1(tableId), tableId, now).first<{ needed: number }>())!.needed);

async function plainTable(name: string) {
  const table = await makeTable(t.owner.token, t.projectId, name);
  const n = (await addColumn(t.owner.token, table.tableId, "N", { type: "number" }))._id;
  return { ...table, n };
}

describe("a write's recomputation is skipped only when nothing can depend on it", () => {
  it("a plain table needs none; marked busy until later it does, until a time past it does not", async () => {
    const table = await plainTable("Plain");
    expect(await needed(table.tableId)).toBe(false);
    const d1 = shardD1(table.tableId);
    await markBusyStatement(d1, table.tableId, Date.now() - 1).run();
    expect(await needed(table.tableId)).toBe(false);
    await markBusyStatement(d1, table.tableId, Date.now() + 60_000).run();
    expect(await needed(table.tableId)).toBe(true);
    // The mark only moves forward: an earlier one does not shorten it.
    await markBusyStatement(d1, table.tableId, Date.now() - 1).run();
    expect(await needed(table.tableId)).toBe(true);
  });

  it("an apply marks its table busy (done before it reads a row), and a table with a formula needs its recomputation", async () => {
    const table = await plainTable("Applied");
    const f = (await addColumn(t.owner.token, table.tableId, "F", { type: "text" }))._id;
    const busyUntil = async () =>
      (await shardD1(table.tableId)
        .prepare("SELECT formula_busy_until AS b FROM tables WHERE id = ?")
        .bind(table.tableId)
        .first<{ b: number }>())!.b;
    const before = Date.now();
    await ok("POST", `/table/column/${f}/computed/apply`, {
      token: t.owner.token,
      body: { description: [], expression: op("*", col(table.n), lit(2)) },
    });
    expect(await busyUntil()).toBeGreaterThan(before + 60_000);
    expect(await needed(table.tableId)).toBe(true);
  });

  it("a bulk PATCH of a table others look into recomputes their lookups before it answers", async () => {
    const tok = t.owner.token;
    const products = await plainTable("Products");
    const cat = (await addColumn(tok, products.tableId, "Category", { type: "text" }))._id;
    const orders = await makeTable(tok, t.projectId, "Orders");
    const wants = (await addColumn(tok, orders.tableId, "Wants", { type: "text" }))._id;
    await addColumn(tok, orders.tableId, "Items", {
      type: "oneMany",
      oneMany: { tableId: products.tableId, filter: [{ targetColumnId: cat, op: "eq", sourceColumnId: wants }] },
    });
    const [hammer] = await bulkRows(tok, products.tableId, [
      { [products.nameColumnId]: "Hammer", [products.n]: 12, [cat]: "tools" },
      { [products.nameColumnId]: "Saw", [products.n]: 30, [cat]: "tools" },
    ]);
    await bulkRows(tok, orders.tableId, [{ [orders.nameColumnId]: "A", [wants]: "tools" }]);
    const total = (
      await addColumn(tok, orders.tableId, "Total", {
        type: "formula",
        formula: { text: "sum(lookup({Items}, {N}))" },
      })
    )._id;
    expect((await allRows(tok, orders.tableId))[0]!.cells[total]).toBe(42);
    expect(await needed(products.tableId)).toBe(true);
    await ok("PATCH", `/table/${products.tableId}/rows`, {
      token: tok,
      body: { rows: [{ _id: hammer._id, cells: { [products.n]: 100 } }] },
    });
    expect((await allRows(tok, orders.tableId))[0]!.cells[total]).toBe(130);
  });
});
