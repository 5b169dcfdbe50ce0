/** parseFormula: POST /formula/parse (src/routes/formulas/parse.ts) — its happy path, errors and request-path checks. */
import { beforeAll, describe, expect, it } from "vitest";
import { call, expectError, ok, type Tenant } from "../../support/harness";
import { addColumn, allRows } from "../../support/tableHarness";
import { col, op } from "../../support/formula/expr";
import { textFormulaOrdersFixture } from "../../support/orders";

/** Formulas as people type them: POST /formula/parse, column writes with `formula: { text }`, E3 with `text`. */
describe("formulas as text over HTTP", () => {
  let t: Tenant;
  let tableId: string;
  let price: string;
  let qty: string;

  beforeAll(async () => {
    ({ t, tableId, price, qty } = await textFormulaOrdersFixture());
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
