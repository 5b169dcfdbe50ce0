import { beforeAll, describe, expect, it } from "vitest";
import { call, expectError, ok, seedTenant, type Tenant } from "../../support/harness";
import { addColumn, allRows, bulkRows, makeTable } from "../../support/tableHarness";
import { col, op } from "../../support/formula/expr";

/** Formulas as people type them: POST /formula/parse, column writes with `formula: { text }`, E3 with `text`. */
describe("formulas as text over HTTP", () => {
  let t: Tenant;
  let tableId: string;
  let nameCol: string;
  let price: string;
  let qty: string;
  let when: string;

  beforeAll(async () => {
    t = await seedTenant();
    const table = await makeTable(t.owner.token, t.projectId, "Orders");
    tableId = table.tableId;
    nameCol = table.nameColumnId;
    price = (await addColumn(t.owner.token, tableId, "Price", { type: "number" }))._id;
    qty = (await addColumn(t.owner.token, tableId, "Qty", { type: "number" }))._id;
    when = (await addColumn(t.owner.token, tableId, "Ordered on", { type: "date" }))._id;
    await addColumn(t.owner.token, tableId, "Done", { type: "checkbox" });
    await bulkRows(t.owner.token, tableId, [
      { [nameCol]: "Pens", [price]: 1.25, [qty]: 4, [when]: Date.UTC(2024, 0, 31) },
      { [nameCol]: "Ink", [price]: 10, [qty]: 2 },
    ]);
  });

  const parse = (text: string, extra: Record<string, unknown> = {}) =>
    call("POST", "/formula/parse", { token: t.viewer.token, body: { tableId, text, ...extra } });

  it("POST /formula/parse answers the tree, canonical text, references and result type", async () => {
    const res = await parse("round( {price}*{Qty} ,2)");
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.data).toEqual({
      tree: { kind: "call", fn: "ROUND", args: [op("*", col(price), col(qty)), { kind: "literal", value: 2 }] },
      text: "ROUND({Price} * {Qty}, 2)",
      references: [price, qty],
      resultType: "number",
    });
    const types = await Promise.all(
      [
        '{Name} & "!"',
        "{Price} > 2",
        "{Ordered on} + 30",
        "EDATE({Ordered on}, 1)",
        "{1,2;3,4}",
        "NA()",
        'IF({Done}, 1, "no")',
        "NOT({Done})",
      ].map(async (text) => (await parse(text)).body.data.resultType),
    );
    expect(types).toEqual(["text", "boolean", "date", "date", "array", "error", "unknown", "boolean"]);
  });

  it("answers 422 with line, column, message and suggestions", async () => {
    const unknownColumn = await parse("{Price} *\n  {Qtty}");
    expectError(unknownColumn, 422, "UnprocessableEntityError");
    expect(unknownColumn.body.details[0]).toMatchObject({ line: 2, column: 3, suggestions: ["Qty"] });
    expect(unknownColumn.body.message).toContain("{Qtty}");

    const unknownFunction = await parse("SUMM({Price})");
    expect(unknownFunction.status).toBe(422);
    expect(unknownFunction.body.details[0]).toMatchObject({ line: 1, column: 1 });
    expect(unknownFunction.body.details[0].suggestions).toContain("SUM");

    const arity = await parse("ROUND({Price})");
    expect(arity.status).toBe(422);
    expect(arity.body.details[0].message).toContain("ROUND(number, num_digits)");

    const unbalanced = await parse("ROUND(({Price}, 2)");
    expect(unbalanced.status).toBe(422);
    expect(unbalanced.body.details[0]).toMatchObject({
      line: 1,
      column: 7,
      message: expect.stringMatching(/Unbalanced parentheses/),
    });
  });

  it("names the path of a reference cycle", async () => {
    const a = await ok("POST", `/table/${tableId}/column`, {
      token: t.owner.token,
      body: { name: "A", data: { type: "formula", formula: { text: "{Price} + 1" } } },
    });
    const b = await ok("POST", `/table/${tableId}/column`, {
      token: t.owner.token,
      body: { name: "B", data: { type: "formula", formula: { text: "{A} * 2" } } },
    });
    const cycle = await call("PATCH", `/table/column/${a.data._id}`, {
      token: t.owner.token,
      body: { data: { type: "formula", formula: { text: "1 +\n{B}" } } },
    });
    expectError(cycle, 422, "UnprocessableEntityError");
    expect(cycle.body.details[0]).toMatchObject({ line: 2, column: 1 });
    expect(cycle.body.details[0].message).toContain("{A} → {B} → {A}");
    const parsed = await parse("{B}", { columnId: a.data._id });
    expect(parsed.status).toBe(422);
    expect(b.data.formula.text).toBe("{A} * 2");
  });

  it("creates a formula column from text, computes it, and returns text, tree and result type", async () => {
    const created = await ok("POST", `/table/${tableId}/column`, {
      token: t.owner.token,
      body: { name: "Total", data: { type: "formula", formula: { text: "{price} * {qty}" } } },
    });
    const column = created.data;
    expect(column.data).toMatchObject({
      type: "formula",
      formula: { text: "{Price} * {Qty}", resultType: "number", expression: op("*", col(price), col(qty)) },
    });
    expect(column.formula).toMatchObject({
      text: "{Price} * {Qty}",
      resultType: "number",
      expression: op("*", col(price), col(qty)),
    });
    const rows = await allRows(t.owner.token, tableId);
    expect(rows.map((r) => r.cells[column._id]).sort()).toEqual([20, 5]);

    // E11 shows the same; a renamed input shows in the text at once.
    await ok("PATCH", `/table/column/${qty}`, { token: t.owner.token, body: { name: "Quantity" } });
    const listed = (await ok("GET", `/table/columns/${tableId}`, { token: t.owner.token })).data.find(
      (c: any) => c._id === column._id,
    );
    expect(listed.formula.text).toBe("{Price} * {Quantity}");
    await ok("PATCH", `/table/column/${qty}`, { token: t.owner.token, body: { name: "Qty" } });

    // What was read can be sent back.
    const current = (await ok("GET", `/table/columns/${tableId}`, { token: t.owner.token })).data.find(
      (c: any) => c._id === column._id,
    );
    expect(current.data.formula.text).toBe("{Price} * {Qty}");
    const sentBack = await call("PATCH", `/table/column/${column._id}`, {
      token: t.owner.token,
      body: { data: current.data },
    });
    expect(sentBack.status, JSON.stringify(sentBack.body)).toBe(200);
    expect(sentBack.body.data.formula).toEqual(current.formula);
  });

  it("changes a column's formula by PATCH with text or with the tree", async () => {
    const column = await addColumn(t.owner.token, tableId, "Label", { type: "text" });
    const patched = await ok("PATCH", `/table/column/${column._id}`, {
      token: t.owner.token,
      body: { data: { type: "formula", formula: { text: '{Name} & ": " & {Qty}' } } },
    });
    expect(patched.data.formula).toMatchObject({ text: '{Name} & ": " & {Qty}', resultType: "text" });
    expect((await allRows(t.owner.token, tableId)).map((r) => r.cells[column._id]).sort()).toEqual([
      "Ink: 2",
      "Pens: 4",
    ]);
    const byTree = await ok("PATCH", `/table/column/${column._id}`, {
      token: t.owner.token,
      body: { data: { type: "formula", formula: { expression: op("+", col(qty), col(qty)) } } },
    });
    expect(byTree.data.formula).toMatchObject({ text: "{Qty} + {Qty}", resultType: "number" });
  });

  it("refuses a bad formula, or an unknown member of a formula column's data, and creates nothing", async () => {
    const bad = await call("POST", `/table/${tableId}/column`, {
      token: t.owner.token,
      body: { name: "Bad", data: { type: "formula", formula: { text: "{Nope} * 2" } } },
    });
    expectError(bad, 422, "UnprocessableEntityError");
    expect(bad.body.details[0]).toMatchObject({ path: "data.formula.text", line: 1, column: 1 });
    const typo = await call("POST", `/table/${tableId}/column`, {
      token: t.owner.token,
      body: { name: "Typo", data: { type: "formula", fromula: { text: "1" } } },
    });
    expectError(typo, 400, "ValidationError");
    const wrongType = await call("POST", `/table/${tableId}/column`, {
      token: t.owner.token,
      body: { name: "Wrong", data: { type: "number", formula: { text: "1" } } },
    });
    expectError(wrongType, 400, "ValidationError");
    const empty = await call("POST", `/table/${tableId}/column`, {
      token: t.owner.token,
      body: { name: "Empty", data: { type: "formula", formula: {} } },
    });
    expectError(empty, 400, "ValidationError");
    const self = await call("POST", `/table/${tableId}/column`, {
      token: t.owner.token,
      body: { name: "Self", data: { type: "formula", formula: { text: "{Self} + 1" } } },
    });
    expectError(self, 422, "UnprocessableEntityError");
    const names = (await ok("GET", `/table/columns/${tableId}`, { token: t.owner.token })).data.map((c: any) => c.name);
    expect(names).not.toContain("Bad");
    expect(names).not.toContain("Typo");
    expect(names).not.toContain("Wrong");
    expect(names).not.toContain("Self");
  });

  it("E3 takes the text too", async () => {
    const column = await addColumn(t.owner.token, tableId, "Discounted", { type: "number" });
    const applied = await ok("POST", `/table/column/${column._id}/computed/apply`, {
      token: t.editor.token,
      body: { text: "ROUND({Price} * (1 - 10%), 3)" },
    });
    expect(applied.updatedRows).toBe(2);
    const rows = await allRows(t.owner.token, tableId);
    expect(rows.map((r) => r.cells[column._id]).sort()).toEqual([1.125, 9]);
    const listed = (await ok("GET", `/table/columns/${tableId}`, { token: t.owner.token })).data.find(
      (c: any) => c._id === column._id,
    );
    expect(listed.formula.text).toBe("ROUND({Price} * (1 - 0.1), 3)");
    const bad = await call("POST", `/table/column/${column._id}/computed/apply`, {
      token: t.editor.token,
      body: { text: "{Price} +" },
    });
    expectError(bad, 422, "UnprocessableEntityError");
    expect(bad.body.details[0]).toMatchObject({ path: "text", line: 1, column: 10 });
    const neither = await call("POST", `/table/column/${column._id}/computed/apply`, {
      token: t.editor.token,
      body: {},
    });
    expectError(neither, 400, "ValidationError");
  });

  it("gives a tree's problems their place in its canonical text", async () => {
    const column = await addColumn(t.owner.token, tableId, "Tree", { type: "number" });
    const res = await call("POST", `/table/column/${column._id}/computed/apply`, {
      token: t.editor.token,
      body: { description: [], expression: op("+", col(price), { kind: "call", fn: "ROUND", args: [col(qty)] }) },
    });
    expectError(res, 422, "UnprocessableEntityError");
    expect(res.body.details[0]).toMatchObject({ path: "expression.args.1.args", line: 1, column: 11 });
    expect(res.body.message).toContain("{Price} + ROUND({Qty})");
  });

  it("sums an array constant", async () => {
    const column = await addColumn(t.owner.token, tableId, "Arr", {
      type: "formula",
      formula: { text: "SUM({1,2;3,4}) + {Qty}" },
    });
    expect(column.formula.expression.args[0].args[0]).toEqual({
      kind: "array",
      rows: [
        [1, 2],
        [3, 4],
      ],
    });
    expect((await allRows(t.owner.token, tableId)).map((r) => r.cells[column._id]).sort()).toEqual([12, 14]);
  });

  it("hides tables the caller cannot read (404)", async () => {
    const res = await call("POST", "/formula/parse", { token: t.outsider.token, body: { tableId, text: "1" } });
    expectError(res, 404, "NotFoundError");
  });
});
