import { describe, expect, it } from "vitest";
import fc from "fast-check";
import type { Expr } from "../../../src/services/formula/expression";
import { FUNCTION_CATALOG } from "../../../src/services/formula/functions";
import { compileFormula } from "../../../src/services/formula/evaluate";
import { valueToCell } from "../../../src/services/formula/values";
import { compileFormulaText } from "../../../src/services/formula/formulaText";
import { ApiError } from "../../../src/errors";
import { errorStatus } from "../../../src/http/errors";
import { printFormula } from "../../../src/services/formula/print";
import { FormulaSyntaxError, type FormulaProblem } from "../../../src/services/formula/syntaxErrors";
import { checkGrammar } from "../../../src/services/formula/text";
import { parseFormula } from "../../../src/services/formula/resolve";
import { col, fn, lit, neg, op } from "../../support/formula/expr";

const COLUMNS = [
  { id: "c_price", name: "Price" },
  { id: "c_qty", name: "Qty" },
  { id: "c_unit", name: "Unit price" },
  { id: "c_brace", name: "odd } name \\ here" },
  { id: "c_arr", name: "1,2" },
  { id: "c_hash", name: "#tag" },
  { id: "c_num", name: "2024" },
  { id: "c_dup1", name: "Twin" },
  { id: "c_dup2", name: "Twin" },
];

const parse = (text: string) => parseFormula(text, COLUMNS).expr;
const print = (e: Expr) => printFormula(e, COLUMNS).text;

function problems(text: string): FormulaProblem[] {
  try {
    parseFormula(text, COLUMNS);
  } catch (err) {
    if (err instanceof FormulaSyntaxError) return err.problems;
    throw err;
  }
  throw new Error(`expected ${text} to fail`);
}

describe("formula text: parsing", () => {
  it("has a grammar that passes Chevrotain's own checks (skipped in service)", () => {
    expect(() => checkGrammar()).not.toThrow();
  });

  it("reads column references by name and by id, numbers, strings and booleans", () => {
    expect(parse("{Price} * {Qty}")).toEqual(op("*", col("c_price"), col("c_qty")));
    expect(parse("{#c_unit}")).toEqual(col("c_unit"));
    expect(parse("{unit PRICE}")).toEqual(col("c_unit"));
    expect(parse("{odd \\} name \\\\ here}")).toEqual(col("c_brace"));
    expect(parse("{1\\,2}")).toEqual(col("c_arr"));
    expect(parse("{2024}")).toEqual(col("c_num"));
    expect(parse('"say ""hi"""')).toEqual(lit('say "hi"'));
    expect(parse("1e3 + 2.5 + .5")).toEqual(op("+", op("+", lit(1000), lit(2.5)), lit(0.5)));
    expect(parse("TRUE")).toEqual(lit(true));
    expect(parse("false")).toEqual(lit(false));
    expect(parse("TRUE()")).toEqual(lit(true));
    expect(parse("FALSE()")).toEqual(lit(false));
    expect(parse("BLANK()")).toEqual(lit(null));
    expect(parse(" =1 = 1")).toEqual(op("=", lit(1), lit(1)));
  });

  it("applies spreadsheet precedence: comparison < & < + - < * / < ^ < unary minus < percent", () => {
    expect(parse("1 + 2 * 3")).toEqual(op("+", lit(1), op("*", lit(2), lit(3))));
    expect(parse("2^3^2")).toEqual(op("^", op("^", lit(2), lit(3)), lit(2)));
    expect(parse("-2^2")).toEqual(op("^", neg(lit(2)), lit(2)));
    expect(parse("1 + 2 = 3")).toEqual(op("=", op("+", lit(1), lit(2)), lit(3)));
    expect(parse('"a" & 1 + 2')).toEqual(op("&", lit("a"), op("+", lit(1), lit(2))));
    expect(parse("{Price} <> 0")).toEqual(op("<>", col("c_price"), lit(0)));
    expect(parse("{Price} <= 0")).toEqual(op("<=", col("c_price"), lit(0)));
    expect(parse("50%")).toEqual(lit(0.5));
    expect(parse("7%")).toEqual(lit(0.07));
    expect(parse("{Price}%")).toEqual(op("/", col("c_price"), lit(100)));
    expect(parse("10 - 2 - 3")).toEqual(op("-", op("-", lit(10), lit(2)), lit(3)));
    expect(parse("(1 + 2) * 3")).toEqual(op("*", op("+", lit(1), lit(2)), lit(3)));
    expect(parse("+5")).toEqual(lit(5));
  });

  it("calls functions by case-insensitive Excel names, with empty arguments as blanks", () => {
    expect(parse("round({Price}, 2)")).toEqual(fn("ROUND", col("c_price"), lit(2)));
    expect(parse("norm.s.dist(1, TRUE)")).toEqual(fn("NORM.S.DIST", lit(1), lit(true)));
    expect(parse("IF({Qty} > 0, , 1)")).toEqual(fn("IF", op(">", col("c_qty"), lit(0)), lit(null), lit(1)));
    expect(parse("PI()")).toEqual(fn("PI"));
    expect(parse("SUM(\n  {Price},\n  {Qty}\n)")).toEqual(fn("SUM", col("c_price"), col("c_qty")));
  });

  it("reads array constants, told from column references by their separators", () => {
    expect(parse("{1,2;3,4}")).toEqual({
      kind: "array",
      rows: [
        [1, 2],
        [3, 4],
      ],
    });
    expect(parse("SUM({1, -2.5, 50%})")).toEqual(fn("SUM", { kind: "array", rows: [[1, -2.5, 0.5]] }));
    expect(parse('{"a";TRUE}')).toEqual({ kind: "array", rows: [["a"], [true]] });
  });
});

describe("formula text: errors a person can fix", () => {
  it("names an unknown column with the nearest names, at its line and column", () => {
    const [p] = problems("{Price} *\n  {Qtty}");
    expect(p).toMatchObject({ line: 2, column: 3, suggestions: ["Qty"] });
    expect(p!.message).toContain("Unknown column {Qtty}");
  });

  it("suggests functions for an unknown one", () => {
    const [p] = problems("SUMM({Price})");
    expect(p).toMatchObject({ line: 1, column: 1 });
    expect(p!.suggestions).toContain("SUM");
  });

  it("gives the signature on a wrong argument count", () => {
    const [p] = problems("1 + ROUND({Price})");
    expect(p).toMatchObject({ line: 1, column: 5 });
    expect(p!.message).toContain("ROUND(number, num_digits)");
  });

  it("reports unbalanced brackets, quotes and braces where they open", () => {
    expect(problems("ROUND(({Price}, 2)")[0]).toMatchObject({ line: 1, column: 7 });
    expect(problems("ROUND(({Price}, 2)")[0]!.message).toMatch(/Unbalanced parentheses/);
    expect(problems("{Price})")[0]).toMatchObject({
      line: 1,
      column: 8,
      message: expect.stringMatching(/no matching \(/),
    });
    expect(problems('"abc')[0]).toMatchObject({
      line: 1,
      column: 1,
      message: expect.stringMatching(/Unbalanced quotes/),
    });
    expect(problems("1 + {Price")[0]).toMatchObject({
      line: 1,
      column: 5,
      message: expect.stringMatching(/Unbalanced braces/),
    });
    expect(problems("1 +")[0]!.message).toMatch(/ends too soon/);
    expect(problems("=")[0]!.message).toMatch(/empty/);
    expect(problems("={Nope}")[0]).toMatchObject({ line: 1, column: 2 });
    expect(problems("1 2")[0]).toMatchObject({ line: 1, column: 3 });
  });

  it("lists every problem, refuses ambiguous names, bare names and uneven arrays", () => {
    expect(problems("{Nope} + SUMM(1)")).toHaveLength(2);
    expect(problems("{Twin}")[0]!.suggestions).toEqual(["{#c_dup1}", "{#c_dup2}"]);
    expect(problems("Price * 2")[0]!.message).toContain("{Price}");
    expect(problems("{1,2;3}")[0]!.message).toMatch(/same number of items/);
  });
});

// ---- printer ----------------------------------------------------------------------------------------------

/** What a tree reads back as after printing: the spellings the text has no other form for. */
function normalize(e: Expr): Expr {
  switch (e.kind) {
    case "literal":
      if (typeof e.value === "number" && (e.value < 0 || Object.is(e.value, -0)))
        return e.value === 0 ? lit(0) : neg(lit(-e.value));
      return e;
    case "array":
      // JSON has no -0 either.
      return { kind: "array", rows: e.rows.map((r) => r.map((v) => (Object.is(v, -0) ? 0 : v))) };
    case "column":
    case "name":
      return e;
    case "neg":
      return neg(normalize(e.arg));
    case "op":
      if (e.op === "%") return fn("MOD", normalize(e.args[0]), normalize(e.args[1]));
      return op(e.op, normalize(e.args[0]), normalize(e.args[1]));
    case "call": {
      const name = e.fn.toUpperCase();
      if ((name === "TRUE" || name === "FALSE") && e.args.length === 0) return lit(name === "TRUE");
      return fn(name, ...e.args.map(normalize));
    }
  }
}

// LET takes names in its odd positions (tested on its own in excel.test.ts).
const FUNCTIONS = [...FUNCTION_CATALOG.values()].filter(
  (f) => f.max >= 1 && f.min <= 3 && f.name !== "TRUE" && f.name !== "FALSE" && f.name !== "LET",
);
const arrayItem = fc.oneof(
  fc.double({ noNaN: true, noDefaultInfinity: true }),
  fc.string({ maxLength: 6 }),
  fc.boolean(),
);
const exprArb: fc.Arbitrary<Expr> = fc.letrec<{ e: Expr }>((tie) => ({
  e: fc.oneof(
    { depthSize: "small", withCrossShrink: true },
    fc.oneof(
      fc.double({ noNaN: true, noDefaultInfinity: true }).map((v) => lit(v)),
      fc.string({ maxLength: 8 }).map((v) => lit(v)),
      fc.boolean().map((v) => lit(v)),
      fc.constant(lit(null)),
      fc.constantFrom(...COLUMNS.map((c) => col(c.id))),
      fc
        .tuple(fc.integer({ min: 1, max: 3 }), fc.integer({ min: 2, max: 3 }))
        .chain(([r, c]) =>
          fc.array(fc.array(arrayItem, { minLength: c, maxLength: c }), { minLength: r, maxLength: r }),
        )
        .map((rows) => ({ kind: "array", rows }) as Expr),
    ),
    tie("e").map((a) => neg(a)),
    fc
      .tuple(
        fc.constantFrom("+", "-", "*", "/", "%", "^", "&", "=", "<>", "<", "<=", ">", ">=" as const),
        tie("e"),
        tie("e"),
      )
      .map(([o, a, b]) => op(o as never, a, b)),
    fc
      .tuple(fc.constantFrom(...FUNCTIONS), fc.boolean())
      .chain(([f, lower]) =>
        fc
          .array(tie("e"), { minLength: f.min, maxLength: Math.min(f.max, f.min + 2) })
          .map((args) =>
            fn(
              lower ? f.name.toLowerCase() : f.name,
              ...(f.pairs && (args.length - f.min) % 2 ? args.slice(0, -1) : args),
            ),
          ),
      ),
  ),
})).e;

describe("formula text: printing", () => {
  it("prints canonical text", () => {
    expect(print(op("*", col("c_price"), col("c_qty")))).toBe("{Price} * {Qty}");
    expect(print(op("*", op("+", lit(1), lit(2)), lit(3)))).toBe("(1 + 2) * 3");
    expect(print(op("-", lit(1), op("-", lit(2), lit(3))))).toBe("1 - (2 - 3)");
    expect(print(op("^", neg(lit(2)), lit(2)))).toBe("-2 ^ 2");
    expect(print(neg(op("^", lit(2), lit(2))))).toBe("-(2 ^ 2)");
    expect(print(fn("round", col("c_brace"), lit(2)))).toBe("ROUND({odd \\} name \\\\ here}, 2)");
    expect(print(col("c_arr"))).toBe("{\\1,2}");
    expect(print(col("c_hash"))).toBe("{\\#tag}");
    expect(print(col("c_dup1"))).toBe("{#c_dup1}");
    expect(print(op("%", lit(7), lit(3)))).toBe("MOD(7, 3)");
    expect(
      print({
        kind: "array",
        rows: [
          [1, "a"],
          [true, -2],
        ],
      }),
    ).toBe('{1, "a"; TRUE, -2}');
    expect(printFormula(op("+", col("c_price"), lit(1)), COLUMNS).description).toEqual([
      { kind: "column", text: "{Price}", columnId: "c_price" },
      { kind: "text", text: " + 1" },
    ]);
  });

  it("reads back any tree it prints, and text → tree → text is stable", () => {
    fc.assert(
      fc.property(exprArb, (tree) => {
        const text = print(tree);
        const back = parse(text);
        expect(back).toEqual(normalize(tree));
        expect(print(back)).toBe(text);
      }),
      { numRuns: 1000 },
    );
  });

  it("keeps typed text stable after one normalization", () => {
    const typed = fc.constantFrom(
      "{price}*{QTY}",
      "sum( 1,2 ,3)",
      "-2^2",
      "2^3^2",
      "50%*{Price}",
      'IF({Qty}>0,"yes",)',
      "{1,2;3,4}",
      "a(1)".replace("a", "abs"),
      "((1))",
      "1--1",
      "TRUE()",
      '"x"&{Unit price}&""""',
    );
    fc.assert(
      fc.property(typed, (text) => {
        const once = print(parse(text));
        expect(print(parse(once))).toBe(once);
      }),
    );
  });
});

describe("formula text: array constants evaluate as ranges", () => {
  const value = (text: string) => valueToCell(compileFormula(parse(text))(() => null));
  it("feeds list and matrix functions", () => {
    expect(value("SUM({1,2;3,4})")).toBe(10);
    expect(value("AVERAGE({1,2,3,4})")).toBe(2.5);
    expect(value("MAX({1,-7;30,4})")).toBe(30);
    expect(value("LARGE({5,1,9}, 2)")).toBe(5);
    expect(value('COUNT({1,"a",TRUE,4})')).toBe(2);
    expect(value("MATCH(9, {5,1,9}, 0)")).toBe(3);
    expect(value("INDEX({1,2;3,4}, 2, 1)")).toBe(3);
    expect(value("SUMPRODUCT({1,2,3}, {4,5,6})")).toBe(32);
    expect(value('TEXTJOIN("-", TRUE, {"a","b","c"})')).toBe("a-b-c");
    expect(value("{1,2;3,4}")).toEqual([
      [1, 2],
      [3, 4],
    ]);
  });
});

describe("formula text: bounds", () => {
  const columns = COLUMNS.map((c) => ({
    ...c,
    type: "number",
    isIdentifier: false,
    isDeleted: false,
    data: { type: "number" },
    formula: null,
  }));
  const status = (text: string) => {
    try {
      compileFormulaText(text, columns, { path: "text" });
      return 200;
    } catch (err) {
      return err instanceof ApiError ? errorStatus[err.code] : 500;
    }
  };
  it("refuses formulas too deep or too long with 422, never a crash", () => {
    expect(status(Array.from({ length: 8000 }, () => "1").join("+"))).toBe(422);
    expect(status(`${"(".repeat(5000)}1${")".repeat(5000)}`)).toBe(422);
    expect(status(`${"-".repeat(10_000)}1`)).toBe(422);
    expect(status(`${"SUM(".repeat(3000)}1${")".repeat(3000)}`)).toBe(422);
    expect(status("x".repeat(20_000))).toBe(422);
    expect(status(`{${"a".repeat(16_000)}}`)).toBe(422);
    expect(status("“Price”")).toBe(422);
  });
});
