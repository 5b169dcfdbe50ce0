/**
 * The evaluator against hand-computed results, inside workerd (UTC, like production). Each case evaluates a
 * tree over one row whose cells are given by column type and stored JSON, and compares the stored result.
 */
import { describe, expect, it } from "vitest";
import { compileFormula } from "../../../src/services/formula/evaluate";
import { cellToValue, valueToCell, type ColumnMeta, type FormulaValue } from "../../../src/services/formula/values";
import { FUNCTION_CATALOG } from "../../../src/services/formula/functions";
import type { Expr } from "../../../src/services/formula/expression";
import { col, fn, lit, neg, op } from "../../support/formula/expr";

const utc = (y: number, m: number, d: number) => Date.UTC(y, m - 1, d);

const metas: Record<string, ColumnMeta> = {
  n: { id: "n", type: "number" },
  m: { id: "m", type: "number" },
  t: { id: "t", type: "text" },
  blank: { id: "blank", type: "text" },
  d: { id: "d", type: "date" },
  d2: { id: "d2", type: "date" },
  ok: { id: "ok", type: "checkbox" },
  s: {
    id: "s",
    type: "select",
    labels: new Map([
      ["s1", "High"],
      ["s2", "Low"],
    ]),
  },
  ms: {
    id: "ms",
    type: "multiSelect",
    labels: new Map([
      ["a", "Alpha"],
      ["b", "Beta"],
      ["c", "Gamma"],
    ]),
  },
  e: { id: "e", type: "formula" },
  fd: { id: "fd", type: "formula", yieldsDate: true },
};
const row: Record<string, unknown> = {
  n: 12.5,
  m: 4,
  t: "Hello World",
  d: utc(2024, 3, 15),
  d2: utc(2024, 1, 31),
  ok: true,
  s: "s1",
  ms: ["a", "c", "zz"],
  e: { error: "#N/A" },
  fd: utc(2030, 12, 25),
};

function evaluate(expr: Expr): unknown {
  const f = compileFormula(expr);
  const get = (id: string): FormulaValue => {
    const meta = metas[id];
    if (!meta) return new Error("#REF!");
    const v = row[id];
    return v === undefined ? null : cellToValue(v, meta);
  };
  return valueToCell(f(get));
}

const err = (code: string) => ({ error: code });

describe("operators", () => {
  it.each<[string, Expr, unknown]>([
    ["1 + 2 * 3", op("+", lit(1), op("*", lit(2), lit(3))), 7],
    ["n - m", op("-", col("n"), col("m")), 8.5],
    ["n / m", op("/", col("n"), col("m")), 3.125],
    ["2 ^ 10", op("^", lit(2), lit(10)), 1024],
    ["-(n)", neg(col("n")), -12.5],
    ["'3' + 1 (numeric text)", op("+", lit("3"), lit(1)), 4],
    ["blank + 1", op("+", col("blank"), lit(1)), 1],
    ["TRUE + 1", op("+", lit(true), lit(1)), 2],
    ["'abc' + 1", op("+", lit("abc"), lit(1)), err("#VALUE!")],
    ["1 / 0", op("/", lit(1), lit(0)), err("#DIV/0!")],
    ["1 / blank", op("/", lit(1), col("blank")), err("#DIV/0!")],
    ["7 % 3 (MOD)", op("%", lit(7), lit(3)), 1],
    ["-3 % 5 (sign of divisor)", op("%", lit(-3), lit(5)), 2],
    ["3 % -5", op("%", lit(3), lit(-5)), -2],
    ["5 % 0", op("%", lit(5), lit(0)), err("#DIV/0!")],
    ["0 ^ 0", op("^", lit(0), lit(0)), err("#NUM!")],
    ["'a' & 1 & TRUE", op("&", op("&", lit("a"), lit(1)), lit(true)), "a1TRUE"],
    ["(0.1 + 0.2) & ''", op("&", op("+", lit(0.1), lit(0.2)), lit("")), "0.3"],
    ["blank & 'x'", op("&", col("blank"), lit("x")), "x"],
    ["'abc' = 'ABC' (case-insensitive)", op("=", lit("abc"), lit("ABC")), true],
    ["'a' < 'B'", op("<", lit("a"), lit("B")), true],
    ["'abc' <> 'abd'", op("<>", lit("abc"), lit("abd")), true],
    ["1 < 'a' (numbers before text)", op("<", lit(1), lit("a")), true],
    ["'3' = 3 (text is not a number)", op("=", lit("3"), lit(3)), false],
    ["blank = 0", op("=", col("blank"), lit(0)), true],
    ["blank = ''", op("=", col("blank"), lit("")), true],
    ["n >= 12.5", op(">=", col("n"), lit(12.5)), true],
    ["error propagates through +", op("+", op("/", lit(1), lit(0)), lit("x")), err("#DIV/0!")],
    ["stored error propagates", op("+", col("e"), lit(1)), err("#N/A")],
    ["missing column", op("+", col("gone"), lit(1)), err("#REF!")],
  ])("%s", (_name, expr, want) => {
    expect(evaluate(expr)).toEqual(want);
  });
});

describe("functions", () => {
  it.each<[string, Expr, unknown]>([
    ["SUM(1, 2, 3)", fn("SUM", lit(1), lit(2), lit(3)), 6],
    ["SUM(n, m, blank)", fn("SUM", col("n"), col("m"), col("blank")), 16.5],
    ["ROUND(2.345, 2)", fn("ROUND", lit(2.345), lit(2)), 2.35],
    ["ROUND(-2.5, 0)", fn("ROUND", lit(-2.5), lit(0)), -3],
    ["round(n / 3, 1) lower-case name", fn("round", op("/", col("n"), lit(3)), lit(1)), 4.2],
    ["ABS(-4)", fn("ABS", lit(-4)), 4],
    ["MAX(1, 5, 3)", fn("MAX", lit(1), lit(5), lit(3)), 5],
    ["MIN(n, m)", fn("MIN", col("n"), col("m")), 4],
    ["AVERAGE(2, 4, 9)", fn("AVERAGE", lit(2), lit(4), lit(9)), 5],
    ["MOD(10, 4)", fn("MOD", lit(10), lit(4)), 2],
    ["MOD(-6, 3) (library says 3; spreadsheets 0)", fn("MOD", lit(-6), lit(3)), 0],
    ["MOD(-3, -5)", fn("MOD", lit(-3), lit(-5)), -3],
    ["MOD(5.5, 2)", fn("MOD", lit(5.5), lit(2)), 1.5],
    ["SQRT(-1)", fn("SQRT", lit(-1)), err("#NUM!")],
    ["CONCATENATE('a', 'b', 1)", fn("CONCATENATE", lit("a"), lit("b"), lit(1)), "ab1"],
    ["LEN(t)", fn("LEN", col("t")), 11],
    ["LEN(blank)", fn("LEN", col("blank")), 0],
    ["UPPER(t)", fn("UPPER", col("t")), "HELLO WORLD"],
    ["LOWER('ABC')", fn("LOWER", lit("ABC")), "abc"],
    ["LEFT(t, 5)", fn("LEFT", col("t"), lit(5)), "Hello"],
    ["LEFT(t) (optional count)", fn("LEFT", col("t")), "H"],
    ["MID(t, 7, 3)", fn("MID", col("t"), lit(7), lit(3)), "Wor"],
    ["TRIM('  a  b ')", fn("TRIM", lit("  a  b ")), "a b"],
    ["SUBSTITUTE('a-b-c', '-', '+')", fn("SUBSTITUTE", lit("a-b-c"), lit("-"), lit("+")), "a+b+c"],
    ["REPT('ab', 3)", fn("REPT", lit("ab"), lit(3)), "ababab"],
    ["REPT('ab', 1e9) is refused like a spreadsheet", fn("REPT", lit("ab"), lit(1e9)), err("#VALUE!")],
    ["TEXT(1234.567, '#,##0.00')", fn("TEXT", lit(1234.567), lit("#,##0.00")), "1,234.57"],
    ["IF(1 > 2, 'y', 'n')", fn("IF", op(">", lit(1), lit(2)), lit("y"), lit("n")), "n"],
    ["IF(ok, n, 0)", fn("IF", col("ok"), col("n"), lit(0)), 12.5],
    ["IF(FALSE, 1) → FALSE", fn("IF", lit(false), lit(1)), false],
    ["AND(TRUE, FALSE)", fn("AND", lit(true), lit(false)), false],
    ["AND(TRUE, 1)", fn("AND", lit(true), lit(1)), true],
    ["OR(FALSE, TRUE)", fn("OR", lit(false), lit(true)), true],
    ["OR('text', blank) has no logical value", fn("OR", lit("text"), col("blank")), err("#VALUE!")],
    ["NOT(FALSE)", fn("NOT", lit(false)), true],
    ["IFERROR(1 / 0, 'x')", fn("IFERROR", op("/", lit(1), lit(0)), lit("x")), "x"],
    ["IFERROR(5, 'x')", fn("IFERROR", lit(5), lit("x")), 5],
    ["IFNA(e, 'none')", fn("IFNA", col("e"), lit("none")), "none"],
    ["ISERROR(1 / 0)", fn("ISERROR", op("/", lit(1), lit(0))), true],
    ["ISBLANK(blank)", fn("ISBLANK", col("blank")), true],
    ["SUM(1, 1 / 0) propagates", fn("SUM", lit(1), op("/", lit(1), lit(0))), err("#DIV/0!")],
    [
      "IFS(n > 20, 'big', n > 10, 'mid', TRUE, 'small')",
      fn(
        "IFS",
        op(">", col("n"), lit(20)),
        lit("big"),
        op(">", col("n"), lit(10)),
        lit("mid"),
        lit(true),
        lit("small"),
      ),
      "mid",
    ],
    ["IFS with no true condition", fn("IFS", lit(false), lit(1)), err("#N/A")],
    ["SWITCH(s, 'Low', 1, 'High', 2, 0)", fn("SWITCH", col("s"), lit("Low"), lit(1), lit("High"), lit(2), lit(0)), 2],
    ["SWITCH without default", fn("SWITCH", lit("x"), lit("y"), lit(1)), err("#N/A")],
    ["CHOOSE(2, 'a', 'b', 'c')", fn("CHOOSE", lit(2), lit("a"), lit("b"), lit("c")), "b"],
  ])("%s", (_name, expr, want) => {
    expect(evaluate(expr)).toEqual(want);
  });
});

describe("lazy evaluation", () => {
  it.each<[string, Expr, unknown]>([
    ["IF(TRUE, 1, 1/0) never evaluates the error branch", fn("IF", lit(true), lit(1), op("/", lit(1), lit(0))), 1],
    ["IF(FALSE, 1/0, 2)", fn("IF", lit(false), op("/", lit(1), lit(0)), lit(2)), 2],
    ["AND(FALSE, 1/0) stops at FALSE", fn("AND", lit(false), op("/", lit(1), lit(0))), false],
    ["OR(TRUE, 'x' + 1) stops at TRUE", fn("OR", lit(true), op("+", lit("x"), lit(1))), true],
    ["AND(TRUE, 1/0) reaches the error", fn("AND", lit(true), op("/", lit(1), lit(0))), err("#DIV/0!")],
    ["IFERROR(1, 1/0)", fn("IFERROR", lit(1), op("/", lit(1), lit(0))), 1],
    ["IF('maybe', 1, 2) is #VALUE!", fn("IF", lit("maybe"), lit(1), lit(2)), err("#VALUE!")],
  ])("%s", (_name, expr, want) => {
    expect(evaluate(expr)).toEqual(want);
  });
});

describe("dates", () => {
  it.each<[string, Expr, unknown]>([
    ["DATE(2024, 1, 31) → ms", fn("DATE", lit(2024), lit(1), lit(31)), utc(2024, 1, 31)],
    ["YEAR(d)", fn("YEAR", col("d")), 2024],
    ["MONTH(d)", fn("MONTH", col("d")), 3],
    ["DAY(d)", fn("DAY", col("d")), 15],
    ["YEAR(DATE(1999, 12, 31))", fn("YEAR", fn("DATE", lit(1999), lit(12), lit(31))), 1999],
    ["EDATE(d2, 1) (end of February)", fn("EDATE", col("d2"), lit(1)), utc(2024, 2, 29)],
    ["EOMONTH(d, 0)", fn("EOMONTH", col("d"), lit(0)), utc(2024, 3, 31)],
    ["d + 1 → next day", op("+", col("d"), lit(1)), utc(2024, 3, 16)],
    ["1 + d → next day", op("+", lit(1), col("d")), utc(2024, 3, 16)],
    ["d - 15 → date", op("-", col("d"), lit(15)), utc(2024, 2, 29)],
    ["d - d2 → days", op("-", col("d"), col("d2")), 44],
    ["DAYS(d, d2)", fn("DAYS", col("d"), col("d2")), 44],
    ["DATEDIF(d2, d, 'M')", fn("DATEDIF", col("d2"), col("d"), lit("M")), 1],
    ["WEEKDAY(d) (Friday)", fn("WEEKDAY", col("d")), 6],
    ["d > d2", op(">", col("d"), col("d2")), true],
    ["d = DATE(2024, 3, 15)", op("=", col("d"), fn("DATE", lit(2024), lit(3), lit(15))), true],
    ["MAX(d, d2) is the later serial number", fn("MAX", col("d"), col("d2")), 45366],
    ["d & '' is ISO text", op("&", col("d"), lit("")), "2024-03-15"],
    ["a date formula's stored ms reads back as a date", fn("YEAR", col("fd")), 2030],
  ])("%s", (_name, expr, want) => {
    expect(evaluate(expr)).toEqual(want);
  });
});

describe("select, multiSelect and checkbox cells", () => {
  it.each<[string, Expr, unknown]>([
    ["select reads as its label", op("=", col("s"), lit("high")), true],
    ["select & ''", op("&", col("s"), lit("")), "High"],
    ["multiSelect reads as labels (unknown ids dropped)", op("&", col("ms"), lit("")), "Alpha, Gamma"],
    ["COUNTA(multiSelect)", fn("COUNTA", col("ms")), 2],
    ["CONCATENATE(multiSelect)", fn("CONCATENATE", col("ms")), "AlphaGamma"],
    ["multiSelect + 1 is #VALUE!", op("+", col("ms"), lit(1)), err("#VALUE!")],
    ["checkbox", fn("IF", col("ok"), lit("yes"), lit("no")), "yes"],
    ["blank reference stays blank", col("blank"), null],
  ])("%s", (_name, expr, want) => {
    expect(evaluate(expr)).toEqual(want);
  });
});

describe("function catalog", () => {
  it("accepts every library function by its spreadsheet name, with arity", () => {
    expect(FUNCTION_CATALOG.size).toBeGreaterThan(400);
    expect(FUNCTION_CATALOG.has("CHIDIST.RT")).toBe(false);
    expect(FUNCTION_CATALOG.has("CHISQ.DIST.RT")).toBe(true);
    expect(FUNCTION_CATALOG.get("IF")).toMatchObject({ min: 2, max: 3 });
    expect(FUNCTION_CATALOG.get("SUM")).toMatchObject({ min: 1, max: Number.POSITIVE_INFINITY });
    expect(FUNCTION_CATALOG.get("NORM.S.DIST")).toMatchObject({ min: 2, max: 2 });
    expect(FUNCTION_CATALOG.get("PI")).toMatchObject({ min: 0, max: 0 });
    expect(FUNCTION_CATALOG.get("TEXTJOIN")).toMatchObject({ min: 3, max: Number.POSITIVE_INFINITY });
  });
});
