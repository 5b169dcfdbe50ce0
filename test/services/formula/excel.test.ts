/**
 * Spreadsheet-correct (docs/api-guide.md › Formulas): every formula of the corpus
 * (test/support/formula/corpus/excel.json, Excel's documented results with edge cases per function) typed as text,
 * parsed, evaluated, and compared with Excel's answer. Also the rules that need a row: a column is a cell
 * reference, so aggregates count only its numbers while values typed as arguments are coerced.
 */
import { describe, expect, it } from "vitest";
import corpus from "../../support/formula/corpus/excel.json";
import { evaluateText, sameValue, type CorpusCase } from "../../support/formula/corpus";
import { compileFormula, evaluateCell } from "../../../src/services/formula/evaluate";
import { parseFormula } from "../../../src/services/formula/resolve";
import { lookupFunction } from "../../../src/services/formula/functions";
import { printFormula } from "../../../src/services/formula/print";
import type { Expr } from "../../../src/services/formula/expression";
import { validateFormula } from "../../../src/services/formula/validate";
import { cellToValue, type ColumnMeta } from "../../../src/services/formula/values";

describe("the Excel corpus", () => {
  const cases = (corpus as { cases: CorpusCase[] }).cases;

  it("has edge cases for every function family the issue lists", () => {
    expect(cases.length).toBeGreaterThanOrEqual(300);
  });

  it.each(cases.map((c) => [c.f, c.excel] as const))("%s → %j", (f, want) => {
    const got = evaluateText(f);
    expect(sameValue(got, want), `${f}: got ${JSON.stringify(got)}, Excel ${JSON.stringify(want)}`).toBe(true);
  });
});

describe("Excel's optional arguments are accepted", () => {
  it.each([
    ["VLOOKUP", 3],
    ["HLOOKUP", 3],
    ["MATCH", 2],
    ["INDEX", 2],
    ["RANK.EQ", 2],
    ["RANK", 2],
    ["ERF", 1],
    ["NORMSDIST", 1],
    ["T.TEST", 4],
    ["TTEST", 4],
    ["LOOKUP", 2],
    ["COLUMN", 0],
    ["COLUMN", 1],
    ["ROW", 0],
    ["Z.TEST", 2],
    ["ZTEST", 2],
    ["XLOOKUP", 3],
    ["XMATCH", 2],
    ["FILTER", 2],
    ["SORTBY", 2],
    ["SEQUENCE", 1],
    ["TEXTBEFORE", 2],
    ["TEXTAFTER", 2],
    ["TEXTSPLIT", 2],
    ["PRICE", 6],
    ["YIELD", 6],
    ["DURATION", 5],
    ["VDB", 5],
  ] as const)("%s with %i arguments", (name, count) => {
    const spec = lookupFunction(name);
    expect(spec, name).toBeDefined();
    expect(count).toBeGreaterThanOrEqual(spec!.min);
    expect(count).toBeLessThanOrEqual(spec!.max);
  });

  it("has the common functions people reach for", () => {
    for (const name of [
      "STDEV",
      "VAR",
      "MODE",
      "RANK",
      "PERCENTILE",
      "QUARTILE",
      "XLOOKUP",
      "XMATCH",
      "FILTER",
      "SORTBY",
      "SEQUENCE",
      "TEXTBEFORE",
      "TEXTAFTER",
      "TEXTSPLIT",
      "FORECAST.LINEAR",
      "VDB",
      "PRICE",
      "YIELD",
      "DURATION",
    ]) {
      expect(lookupFunction(name), name).toBeDefined();
    }
  });
});

describe("LET", () => {
  it("binds names for the values after them and the calculation, and prints back canonically", () => {
    const { expr } = parseFormula("let(x, 2, y, x + 1, x * y)", []);
    expect(expr).toEqual({
      kind: "call",
      fn: "LET",
      args: [
        { kind: "name", name: "X" },
        { kind: "literal", value: 2 },
        { kind: "name", name: "Y" },
        {
          kind: "op",
          op: "+",
          args: [
            { kind: "name", name: "X" },
            { kind: "literal", value: 1 },
          ],
        },
        {
          kind: "op",
          op: "*",
          args: [
            { kind: "name", name: "X" },
            { kind: "name", name: "Y" },
          ],
        },
      ],
    });
    expect(printFormula(expr, []).text).toBe("LET(X, 2, Y, X + 1, X * Y)");
    expect(evaluateText("LET(X, 2, Y, X + 1, X * Y)")).toBe(6);
  });

  it("refuses a name used outside its LET, and a value where a name belongs, with positions", () => {
    expect(() => parseFormula("LET(x, 1, x) + x", [])).toThrow(/Unknown name x/);
    expect(() => parseFormula("LET(1, 2, 3)", [])).toThrow(/LET takes a name here/);
    expect(() => parseFormula("LET(x, 1)", [])).toThrow(/LET takes 3 to 253 arguments/);
  });

  it("refuses a stored tree whose name is not bound by a LET around it", () => {
    const tree: Expr = {
      kind: "op",
      op: "+",
      args: [
        { kind: "name", name: "X" },
        { kind: "literal", value: 1 },
      ],
    };
    expect(() =>
      validateFormula({ columnId: "f", expression: { tooDeep: false, expr: tree }, description: [] }, []),
    ).toThrow(/Unknown name X/);
  });
});

describe("a column is a cell reference", () => {
  const metas: Record<string, ColumnMeta> = {
    t: { id: "t", type: "text" },
    n: { id: "n", type: "number" },
    b: { id: "b", type: "checkbox" },
    e: { id: "e", type: "text" },
  };
  const row: Record<string, unknown> = { t: "3", n: 4, b: true, e: "" };
  const run = (text: string) => {
    const { expr } = parseFormula(
      text,
      Object.keys(metas).map((id) => ({ id, name: id })),
    );
    return evaluateCell(compileFormula(expr), (id) => cellToValue(row[id] ?? null, metas[id]!));
  };

  it.each([
    ["SUM({t}, {n}, {b})", 4], // a text "3" and TRUE in cells are ignored, as in a range
    ['SUM("3", {n}, TRUE)', 8], // typed as arguments they count
    ["COUNT({t}, {n}, {b})", 1],
    ['COUNT("3", {n}, TRUE)', 3],
    ["COUNTA({t}, {n}, {b}, {e})", 3], // an empty text cell is blank
    ["AVERAGE({t}, {n})", 4],
    ["MAX({t}, 1)", 1],
    ["AND({t}, TRUE)", true], // text in a cell is ignored by AND ...
    ['AND("x", TRUE)', { error: "#VALUE!" }], // ... typed text is not
    ["{e} + 1", 1], // an empty cell is 0 in arithmetic ...
    ['"" + 1', { error: "#VALUE!" }], // ... an empty text value is not a number
    ["{t} + 1", 4],
  ] as const)("%s → %j", (text, want) => {
    expect(run(text)).toEqual(want);
  });
});
