import { beforeAll, describe, expect, it } from "vitest";
import { call, expectError, ok, seedTenant, type Tenant } from "../../support/harness";
import { shardD1 } from "../../support/shards";
import { addColumn, addRow, allRows, bulkRows, makeTable, type TestTable } from "../../support/tableHarness";
import { col } from "../../support/formula/expr";
import { formulaLimits } from "../../../src/services/formula/limits";
import { DEPENDENT_TABLES } from "../../../src/services/formula/queries";

/**
 * Lookups and rollups over relations (docs/api-guide.md › Formulas, "Lookups and rollups"): LOOKUP({Relation},
 * {Column}) reads the linked rows' values; a change in the linked table recomputes the lookups before it answers.
 */
describe("lookups and rollups across linked tables", () => {
  let t: Tenant;
  let products: TestTable;
  let orders: TestTable;
  let price: string, category: string, wants: string, items: string;
  const product: Record<string, string> = {};
  const order: Record<string, string> = {};

  const formula = (name: string, text: string, table = orders) =>
    addColumn(t.owner.token, table.tableId, name, { type: "formula", formula: { text } });
  const cellsByName = async (table: TestTable) =>
    Object.fromEntries(
      (await allRows(t.viewer.token, table.tableId)).map((r) => [r.cells[table.nameColumnId], r.cells]),
    ) as Record<string, Record<string, unknown>>;

  beforeAll(async () => {
    t = await seedTenant();
    const tok = t.owner.token;
    products = await makeTable(tok, t.projectId, "Products");
    orders = await makeTable(tok, t.projectId, "Orders");
    price = (await addColumn(tok, products.tableId, "Price", { type: "number" }))._id;
    category = (await addColumn(tok, products.tableId, "Category", { type: "text" }))._id;
    wants = (await addColumn(tok, orders.tableId, "Wants", { type: "text" }))._id;
    items = (
      await addColumn(tok, orders.tableId, "Items", {
        type: "oneMany",
        oneMany: { tableId: products.tableId, filter: [{ targetColumnId: category, op: "eq", sourceColumnId: wants }] },
      })
    )._id;
    const rows = await bulkRows(tok, products.tableId, [
      { [products.nameColumnId]: "Hammer", [price]: 12, [category]: "tools" },
      { [products.nameColumnId]: "Yo-yo", [price]: 3, [category]: "toys" },
      { [products.nameColumnId]: "Saw", [price]: 30, [category]: "tools" },
      { [products.nameColumnId]: "Kite", [category]: "toys" },
    ]);
    for (const r of rows) product[r.cells[products.nameColumnId]] = r._id;
    const orderRows = await bulkRows(tok, orders.tableId, [
      { [orders.nameColumnId]: "A", [wants]: "tools" },
      { [orders.nameColumnId]: "B", [wants]: "toys" },
      { [orders.nameColumnId]: "C" },
    ]);
    for (const r of orderRows) order[r.cells[orders.nameColumnId]] = r._id;
  });

  it("rolls up the linked rows' values, with the relation's filter honoured", async () => {
    const total = await formula("Total", "sum(lookup({Items}, {Price}))");
    expect(total.formula).toMatchObject({ text: "SUM(LOOKUP({Items}, {Price}))", resultType: "number" });
    expect(total.formula.expression).toEqual({
      kind: "call",
      fn: "SUM",
      args: [{ kind: "call", fn: "LOOKUP", args: [col(items), col(price)] }],
    });
    const names = await formula("Names", "ARRAYJOIN(LOOKUP({Items}, {Name}))");
    const count = await formula("Count", "COUNTA(LOOKUP({Items}, {Name}))");
    const sum = await formula("Sum text", 'ARRAYJOIN(LOOKUP({Items}, {Price}), " + ")');
    const stats = await formula(
      "Stats",
      'AVERAGE(LOOKUP({Items}, {Price})) & "/" & MIN(LOOKUP({Items}, {Price})) & "/" & MAX(LOOKUP({Items}, {Price}))',
    );
    const rows = await cellsByName(orders);
    expect(rows.A![total._id]).toBe(42);
    expect(rows.B![total._id]).toBe(3);
    expect(rows.C![total._id]).toBe(0);
    expect(rows.A![names._id]).toBe("Hammer, Saw");
    expect(rows.B![names._id]).toBe("Yo-yo, Kite");
    expect(rows.B![count._id]).toBe(2);
    expect(rows.A![sum._id]).toBe("12 + 30");
    expect(rows.B![sum._id]).toBe("3");
    expect(rows.A![stats._id]).toBe("21/12/30");

    const parsed = await ok("POST", "/formula/parse", {
      token: t.viewer.token,
      body: { tableId: orders.tableId, text: "LOOKUP({Items}, {Category})" },
    });
    expect(parsed.data).toMatchObject({ text: "LOOKUP({Items}, {Category})", resultType: "array" });
    // E3 takes the tree too; Excel's LOOKUP (not over a relation) is unchanged.
    const byTree = await addColumn(t.owner.token, orders.tableId, "Tree", { type: "number" });
    await ok("POST", `/table/column/${byTree._id}/computed/apply`, {
      token: t.editor.token,
      body: {
        expression: { kind: "call", fn: "MAX", args: [{ kind: "call", fn: "LOOKUP", args: [col(items), col(price)] }] },
      },
    });
    const excel = await formula("Excel lookup", "LOOKUP(2, {1, 2, 3}, {10, 20, 30})");
    const after = await cellsByName(orders);
    expect(after.A![byTree._id]).toBe(30);
    expect(after.A![excel._id]).toBe(20);
    const listed = (await ok("GET", `/table/columns/${orders.tableId}`, { token: t.viewer.token })).data.find(
      (c: any) => c._id === byTree._id,
    );
    expect(listed.formula.text).toBe("MAX(LOOKUP({Items}, {Price}))");
  });

  it("recomputes the lookups when a linked row changes, is added or deleted, before the write answers", async () => {
    const total = await formula("Total 2", "SUM(LOOKUP({Items}, {Price}))");
    const totalOf = async (name: string) => (await cellsByName(orders))[name]![total._id];
    expect(await totalOf("A")).toBe(42);

    await ok("PUT", `/table/row/${product.Hammer}/cell/${price}`, { token: t.editor.token, body: { data: 20 } });
    expect(await totalOf("A")).toBe(50);

    const drill = await addRow(t.editor.token, products.tableId, {
      [products.nameColumnId]: "Drill",
      [price]: 100,
      [category]: "tools",
    });
    expect(await totalOf("A")).toBe(150);

    await ok("PUT", `/table/row/${product.Saw}/cell/${category}`, { token: t.editor.token, body: { data: "toys" } });
    expect(await totalOf("A")).toBe(120);
    expect(await totalOf("B")).toBe(33);

    await ok("DELETE", `/table/row/${drill.row._id}`, { token: t.editor.token });
    expect(await totalOf("A")).toBe(20);

    // A change on the looking side: the row's own filter value.
    await ok("PUT", `/table/row/${order.C}/cell/${wants}`, { token: t.editor.token, body: { data: "toys" } });
    expect(await totalOf("C")).toBe(33);

    // The relation's filter changes: every lookup through it is recomputed.
    await ok("PATCH", `/table/column/${items}`, {
      token: t.owner.token,
      body: {
        data: {
          type: "oneMany",
          oneMany: { tableId: products.tableId, filter: [{ targetColumnId: price, op: "gt", value: 10 }] },
        },
      },
    });
    const rows = await cellsByName(orders);
    expect([rows.A![total._id], rows.B![total._id], rows.C![total._id]]).toEqual([50, 50, 50]);
    await ok("PATCH", `/table/column/${items}`, {
      token: t.owner.token,
      body: {
        data: {
          type: "oneMany",
          oneMany: {
            tableId: products.tableId,
            filter: [{ targetColumnId: category, op: "eq", sourceColumnId: wants }],
          },
        },
      },
    });
    expect(await totalOf("A")).toBe(20);

    // The looked-up column deleted: the lookup reads an error, not the old sum.
    const cost = (await addColumn(t.owner.token, products.tableId, "Cost", { type: "number" }))._id;
    await ok("PUT", `/table/row/${product.Hammer}/cell/${cost}`, { token: t.editor.token, body: { data: 5 } });
    const costs = await formula("Costs", "SUM(LOOKUP({Items}, {Cost}))");
    expect((await cellsByName(orders)).A![costs._id]).toBe(5);
    await ok("DELETE", `/table/column/${cost}`, { token: t.owner.token });
    expect((await cellsByName(orders)).A![costs._id]).toEqual({ error: "#REF!" });
  });

  it("refuses unknown linked columns, relations of relations and lookups of lookups (422, one level deep)", async () => {
    const unknown = await call("POST", `/table/${orders.tableId}/column`, {
      token: t.owner.token,
      body: { name: "Bad", data: { type: "formula", formula: { text: "SUM(LOOKUP({Items}, {Prize}))" } } },
    });
    expectError(unknown, 422, "UnprocessableEntityError");
    expect(unknown.body.details[0]).toMatchObject({ line: 1, column: 21, suggestions: ["Price"] });
    expect(unknown.body.message).toContain("linked table");

    // Products looks back at Orders; looking that lookup up from Orders would be two levels.
    const back = (
      await addColumn(t.owner.token, products.tableId, "Ordered by", {
        type: "oneMany",
        oneMany: { tableId: orders.tableId, filter: [{ targetColumnId: wants, op: "eq", sourceColumnId: category }] },
      })
    )._id;
    const relationOfRelation = await call("POST", `/table/${orders.tableId}/column`, {
      token: t.owner.token,
      body: { name: "Rel", data: { type: "formula", formula: { text: "LOOKUP({Items}, {Ordered by})" } } },
    });
    expectError(relationOfRelation, 422, "UnprocessableEntityError");
    expect(relationOfRelation.body.message).toContain("is a relation");
    const orderNames = await formula("Order names", 'TEXTJOIN(",", TRUE, LOOKUP({Ordered by}, {Name}))', products);
    expect((await cellsByName(products)).Hammer![orderNames._id]).toBe("A");
    const deeper = await call("POST", `/table/${orders.tableId}/column`, {
      token: t.owner.token,
      body: { name: "Deep", data: { type: "formula", formula: { text: "LOOKUP({Items}, {Order names})" } } },
    });
    expectError(deeper, 422, "UnprocessableEntityError");
    expect(deeper.body.message).toContain("one level deep");
    expect(back).toBeTruthy();

    // The other way round: a looked-up column may not become a lookup.
    const doubled = await formula("Doubled", "{Price} * 2", products);
    await formula("Doubled total", "SUM(LOOKUP({Items}, {Doubled}))");
    const becomesLookup = await call("PATCH", `/table/column/${doubled._id}`, {
      token: t.owner.token,
      body: { data: { type: "formula", formula: { text: "COUNTA(LOOKUP({Ordered by}, {Name}))" } } },
    });
    expectError(becomesLookup, 422, "UnprocessableEntityError");
    expect(becomesLookup.body.message).toContain("one level deep");
  });

  it("reads only tables of the same project, and answers the column as a viewer may see it", async () => {
    const other = await makeTable(t.owner.token, t.projectId, "Other");
    const foreignPrice = (await addColumn(t.owner.token, other.tableId, "Price", { type: "number" }))._id;
    const tree = await call("POST", `/table/${orders.tableId}/column`, {
      token: t.owner.token,
      body: {
        name: "Foreign",
        data: {
          type: "formula",
          formula: { expression: { kind: "call", fn: "LOOKUP", args: [col(items), col(foreignPrice)] } },
        },
      },
    });
    expectError(tree, 422, "UnprocessableEntityError");
    const viewerWrite = await call("POST", `/table/${orders.tableId}/column`, {
      token: t.viewer.token,
      body: { name: "V", data: { type: "formula", formula: { text: "SUM(LOOKUP({Items}, {Price}))" } } },
    });
    expect(viewerWrite.status).toBe(403);
    const outsider = await call("POST", "/formula/parse", {
      token: t.outsider.token,
      body: { tableId: orders.tableId, text: "SUM(LOOKUP({Items}, {Price}))" },
    });
    expect(outsider.status).toBe(404);
  });

  it("a lookup past the list cap is #LIMIT!, within it the list", async () => {
    const all = (
      await addColumn(t.owner.token, orders.tableId, "All products", {
        type: "oneMany",
        oneMany: { tableId: products.tableId, filter: [{ targetColumnId: products.nameColumnId, op: "isNotEmpty" }] },
      })
    )._id;
    const saved = formulaLimits.arrayElements;
    formulaLimits.arrayElements = 2;
    try {
      const capped = await formula("Capped", "COUNTA(LOOKUP({All products}, {Name}))");
      expect((await cellsByName(orders)).A![capped._id]).toEqual({ error: "#LIMIT!" });
    } finally {
      formulaLimits.arrayElements = saved;
    }
    const counted = await formula("Counted", "COUNTA(LOOKUP({All products}, {Name}))");
    expect((await cellsByName(orders)).A![counted._id]).toBe(4);
    expect(all).toBeTruthy();
  });

  it("finds the tables looking into a table on an index, through formula changes, deletes and re-pointed relations", async () => {
    const tok = t.owner.token;
    const source = await makeTable(tok, t.projectId, "Source");
    const other = await makeTable(tok, t.projectId, "Other");
    const sourceValue = (await addColumn(tok, source.tableId, "Value", { type: "number" }))._id;
    const otherValue = (await addColumn(tok, other.tableId, "Value", { type: "number" }))._id;
    const [s1] = await bulkRows(tok, source.tableId, [{ [source.nameColumnId]: "s1", [sourceValue]: 1 }]);
    const [o1] = await bulkRows(tok, other.tableId, [{ [other.nameColumnId]: "o1", [otherValue]: 100 }]);
    const looker = await makeTable(tok, t.projectId, "Looker");
    const link = (
      await addColumn(tok, looker.tableId, "Link", {
        type: "oneMany",
        oneMany: { tableId: source.tableId, filter: [{ targetColumnId: sourceValue, op: "gt", value: 0 }] },
      })
    )._id;
    await bulkRows(tok, looker.tableId, [{ [looker.nameColumnId]: "L" }]);
    const sum = await formula("Sum", "SUM(LOOKUP({Link}, {Value}))", looker);
    const max = await formula("Max", "MAX(LOOKUP({Link}, {Value}))", looker);
    const cell = async (columnId: string) => (await cellsByName(looker)).L![columnId];
    const dependents = async (tableId: string) =>
      (await shardD1(tableId).prepare(DEPENDENT_TABLES).bind(tableId).all<{ table_id: string }>()).results.map(
        (r) => r.table_id,
      );
    const setValue = (rowId: string, columnId: string, data: number) =>
      ok("PUT", `/table/row/${rowId}/cell/${columnId}`, { token: t.editor.token, body: { data } });

    // An indexed read, not a scan of every column of the database.
    const plan = (
      await shardD1(source.tableId)
        .prepare(`EXPLAIN QUERY PLAN ${DEPENDENT_TABLES}`)
        .bind(source.tableId)
        .all<{ detail: string }>()
    ).results.map((r) => r.detail);
    expect(plan.join(" | ")).toContain("USING INDEX columns_link_target_idx");
    expect(plan.some((d) => /^SCAN (r|columns)\b/.test(d))).toBe(false);

    expect(await dependents(source.tableId)).toEqual([looker.tableId]);
    await setValue(s1._id, sourceValue, 2);
    expect([await cell(sum._id), await cell(max._id)]).toEqual([2, 2]);

    // The formula changes: still recomputed, with the new formula.
    await ok("PATCH", `/table/column/${sum._id}`, {
      token: tok,
      body: { data: { type: "formula", formula: { text: "SUM(LOOKUP({Link}, {Value})) * 10" } } },
    });
    await setValue(s1._id, sourceValue, 3);
    expect([await cell(sum._id), await cell(max._id)]).toEqual([30, 3]);

    // One of the two lookups deleted: the other is still recomputed.
    await ok("DELETE", `/table/column/${max._id}`, { token: tok });
    await setValue(s1._id, sourceValue, 4);
    expect(await cell(sum._id)).toBe(40);
    expect(await dependents(source.tableId)).toEqual([looker.tableId]);

    // The relation re-pointed to another table (and the formula to its column): the new table's changes reach it, the old one's no longer.
    await ok("PATCH", `/table/column/${link}`, {
      token: tok,
      body: {
        data: {
          type: "oneMany",
          oneMany: { tableId: other.tableId, filter: [{ targetColumnId: otherValue, op: "gt", value: 0 }] },
        },
      },
    });
    await ok("PATCH", `/table/column/${sum._id}`, {
      token: tok,
      body: { data: { type: "formula", formula: { text: "SUM(LOOKUP({Link}, {Value})) * 10" } } },
    });
    expect(await dependents(source.tableId)).toEqual([]);
    expect(await dependents(other.tableId)).toEqual([looker.tableId]);
    expect(await cell(sum._id)).toBe(1000);
    await setValue(o1._id, otherValue, 101);
    expect(await cell(sum._id)).toBe(1010);
    await setValue(s1._id, sourceValue, 5);
    expect(await cell(sum._id)).toBe(1010);

    // The last lookup deleted: no table looks into Other any more.
    await ok("DELETE", `/table/column/${sum._id}`, { token: tok });
    expect(await dependents(other.tableId)).toEqual([]);
  });

  it("a deleted linked table turns its lookups into #REF! when the delete answers", async () => {
    const suppliers = await makeTable(t.owner.token, t.projectId, "Suppliers");
    const rating = (await addColumn(t.owner.token, suppliers.tableId, "Rating", { type: "number" }))._id;
    await bulkRows(t.owner.token, suppliers.tableId, [{ [suppliers.nameColumnId]: "Acme", [rating]: 4 }]);
    const buyers = await makeTable(t.owner.token, t.projectId, "Buyers");
    await addColumn(t.owner.token, buyers.tableId, "Suppliers", {
      type: "oneMany",
      oneMany: { tableId: suppliers.tableId, filter: [{ targetColumnId: rating, op: "gt", value: 1 }] },
    });
    await bulkRows(t.owner.token, buyers.tableId, [{ [buyers.nameColumnId]: "Bea" }]);
    const best = await formula("Best", "MAX(LOOKUP({Suppliers}, {Rating}))", buyers);
    expect((await cellsByName(buyers)).Bea![best._id]).toBe(4);
    await ok("DELETE", `/table/${suppliers.tableId}`, { token: t.owner.token });
    expect((await cellsByName(buyers)).Bea![best._id]).toEqual({ error: "#REF!" });
  });
});
