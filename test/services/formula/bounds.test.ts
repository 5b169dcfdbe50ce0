/**
 * Resource bounds of formulas (docs/api-guide.md, "Resource bounds"; issue 19 finding 1): argument bounds past
 * which a function answers #NUM! before it runs, a per-cell budget of time and size answered with #LIMIT!, and
 * whole-table computations that stay bounded and let other requests through.
 *
 * The finding's heap exhaustion (MUNIT(20000)) is never evaluated here: its bound is checked without running
 * the function, and every evaluation below uses inputs that are merely slow or large before the fix.
 */
import fc from "fast-check";
import { beforeAll, describe, expect, it } from "vitest";
import { call, ok, seedTenant, type Tenant } from "../../support/harness";
import { addColumn, addRow, makeTable } from "../../support/tableHarness";
import { compileFormula, evaluateCell } from "../../../src/services/formula/evaluate";
import { FUNCTION_CATALOG } from "../../../src/services/formula/functions";
import { ARGUMENT_BOUNDS, argumentBoundError } from "../../../src/services/formula/argumentBounds";
import { formulaLimits } from "../../../src/services/formula/limits";
import type { Expr } from "../../../src/services/formula/expression";
import { col, fn, lit, op, text } from "../../support/formula/expr";
import { cellValues, columnRecord, seedRows, seedTable } from "../../support/formula/seed";

const LIMIT = { error: "#LIMIT!" };
const NUM = { error: "#NUM!" };

/** One cell of a formula over a row whose cells are given (numbers only), with its evaluation time. */
function evaluate(expr: Expr, cells: Record<string, unknown> = {}): { value: unknown; ms: number } {
  const f = compileFormula(expr);
  const t0 = performance.now();
  const value = evaluateCell(f, (id) => (cells[id] ?? null) as never);
  return { value, ms: performance.now() - t0 };
}

/** Runs `body` with a generous clock budget: for checks of bounds other than time, on a machine that may be loaded. */
function withoutClock<T>(body: () => T): T {
  const saved = formulaLimits.cellMs;
  formulaLimits.cellMs = 60_000;
  try {
    return body();
  } finally {
    formulaLimits.cellMs = saved;
  }
}

const call_ = (name: string, ...args: Array<number | string>) => fn(name, ...args.map(lit));

/** A formula of `count` moderately costly calls, each within its bounds, in a balanced `+` tree (depth ≤ 64). */
function wideFormula(count: number): Expr {
  let level: Expr[] = Array.from({ length: count }, () => fn("SUM", call_("MUNIT", 100)));
  while (level.length > 1) {
    const next: Expr[] = [];
    for (let i = 0; i < level.length; i += 2)
      next.push(i + 1 < level.length ? op("+", level[i]!, level[i + 1]!) : level[i]!);
    level = next;
  }
  return level[0]!;
}

describe("argument bounds", () => {
  it.each<[string, Expr]>([
    // the finding's calls, at sizes that are slow or huge before the bound but cannot exhaust the heap
    ["MUNIT(1000) (a 1,000,000-element matrix)", call_("MUNIT", 1000)],
    ["CRITBINOM(1e6, 0.5, 0.99)", call_("CRITBINOM", 1e6, 0.5, 0.99)],
    ["DB(1e7, 1, 1e7, 1e7, 12)", call_("DB", 1e7, 1, 1e7, 1e7, 12)],
  ])("%s answers #NUM! at once", (_, expr) => {
    const { value, ms } = evaluate(expr);
    expect(value).toEqual(NUM);
    expect(ms).toBeLessThan(150); // each took from 0.3 s to minutes before its bound
  });

  it("refuses the finding's MUNIT(20000), CRITBINOM(1e9, …) and DB(1e9, …) before the library runs", () => {
    expect(argumentBoundError("MUNIT", [20000])).toBeDefined();
    expect(argumentBoundError("CRITBINOM", [1e9, 0.5, 0.99])).toBeDefined();
    expect(argumentBoundError("BINOM.INV", [1e9, 0.5, 0.99])).toBeDefined();
    expect(argumentBoundError("DB", [1e9, 1, 1e9, 1e9, 12])).toBeDefined();
    expect(argumentBoundError("MUNIT", [10])).toBeUndefined();
  });

  it("DOLLAR with a million decimals and ARRAYJOIN of 10,000 items with a 10,000-character separator answer #VALUE! at once", () => {
    const dollar = evaluate(call_("DOLLAR", 0.5, 1e6));
    expect(dollar.value).toEqual({ error: "#VALUE!" });
    const join = evaluate(fn("ARRAYJOIN", call_("SEQUENCE", 10_000), call_("REPT", "-", 10_000)));
    expect(join.value).toEqual({ error: "#VALUE!" });
    // 0.56 s and 0.33 s before (npm run bench -- formula-bounds): the format and the joined text were built first.
    expect(Math.max(dollar.ms, join.ms)).toBeLessThan(150);
  });

  it("names only functions of the catalogue", () => {
    for (const bound of ARGUMENT_BOUNDS)
      for (const name of bound.functions) expect(FUNCTION_CATALOG.has(name), name).toBe(true);
  });

  it("every bound of the table gives a value at its example inside and #NUM! (or #VALUE!) just past it", () => {
    for (const bound of ARGUMENT_BOUNDS) {
      if (!bound.exceeds) continue;
      expect(bound.example, `an example for ${bound.functions}`).toBeDefined();
      expect(bound.rule, `a documented rule for ${bound.functions}`).toBeDefined();
      for (const name of bound.functions) {
        const example = bound.example!;
        const inside = withoutClock(() => evaluate(fn(name, ...example.inside.map(lit))));
        expect(inside.value, `${name}(${example.inside})`).not.toHaveProperty("error");
        const past = evaluate(fn(name, ...example.past.map(lit)));
        expect(past.value, `${name}(${example.past})`).toEqual({ error: bound.error ?? "#NUM!" });
        expect(past.ms).toBeLessThan(150);
      }
    }
  });
});

describe("every function of the catalogue", () => {
  // Huge and awkward arguments, as an attacker would send them; lists as a LOOKUP or multiSelect gives them.
  const scalars = [0, 1, 2, 0.5, -1, 10, 100, 1e3, 1e4, 1e6, 1e9, 1e15, "a", "", true];
  /** Functions that allocate by the value of one argument (its index). */
  const ALLOCATING = new Map<string, number>([
    ["MUNIT", 0],
    ["REPT", 1],
    ["BASE", 2],
    ["ROMAN", 0],
    ...["DEC2BIN", "DEC2HEX", "DEC2OCT", "HEX2BIN", "HEX2OCT", "OCT2BIN", "OCT2HEX", "BIN2HEX", "BIN2OCT"].map(
      (f) => [f, 1] as [string, number],
    ),
  ]);
  const names = [...FUNCTION_CATALOG.values()].filter(
    (f) => !["NOW", "TODAY", "RAND", "RANDBETWEEN", "RANDARRAY"].includes(f.name),
  );

  it("answers every call at huge arguments within the cell's budget, and never throws", () => {
    const list = Array.from({ length: 10_000 }, (_, i) => (i % 97) + 1);
    fc.assert(
      fc.property(
        fc.constantFrom(...names),
        fc.array(fc.oneof(fc.constantFrom(...scalars), fc.constant("LIST")), { minLength: 0, maxLength: 6 }),
        (spec, raw) => {
          const n = Math.min(
            Math.max(raw.length, spec.min),
            spec.max === Infinity ? Math.max(spec.min, raw.length) : spec.max,
          );
          const args = Array.from({ length: n }, (_, i) => raw[i] ?? 1);
          const expr = fn(
            spec.name,
            ...args.map((a, i) => (a === "LIST" ? col(`l${i}`) : lit(a as number | string | boolean))),
          );
          // Functions that allocate by an argument's value would exhaust the heap without their bound, taking the
          // suite down: at huge arguments their bound is asserted instead of run.
          const at = args[ALLOCATING.get(spec.name) ?? -1];
          if (typeof at === "number" && Math.abs(at) > 1e5) {
            expect(argumentBoundError(spec.name, args.map((a) => (a === "LIST" ? list : a)) as never)).toBeDefined();
            return;
          }
          const cells = Object.fromEntries(args.map((a, i) => [`l${i}`, a === "LIST" ? list : null]));
          const { value, ms } = evaluate(expr, cells);
          expect(JSON.stringify(value ?? null).length).toBeLessThanOrEqual(formulaLimits.cellBytes);
          // the clock's hard stop is 4 × 50 ms after the last call that started in time; a loaded machine adds some
          expect(ms, `${spec.name}(${args.map((a) => JSON.stringify(a)).join(", ")})`).toBeLessThan(1_000);
        },
      ),
      { numRuns: 1_500, seed: 19 },
    );
  });
});

describe("per-cell budget", () => {
  it("a call whose estimated work passes the cell's budget is #LIMIT! without running", () => {
    const list = (n: number) => Array.from({ length: n }, (_, i) => i);
    // FREQUENCY compares every value with every bin: 10,000 × 10,000 took seconds before
    const { value, ms } = evaluate(fn("FREQUENCY", col("a"), col("b")), { a: list(10_000), b: list(10_000) });
    expect(value).toEqual(LIMIT);
    expect(ms).toBeLessThan(500); // running it takes seconds
    expect(
      withoutClock(() => evaluate(fn("FREQUENCY", col("a"), col("b")), { a: list(100), b: [10, 50] })).value,
    ).toEqual([11, 40, 49]);
  });

  it("without the clock (Workers freeze it while code runs), the count of work alone stops a costly cell", () => {
    const saved = formulaLimits.cellMs;
    formulaLimits.cellMs = Number.POSITIVE_INFINITY;
    try {
      const { value, ms } = evaluate(wideFormula(128));
      expect(value).toEqual(LIMIT);
      expect(ms).toBeLessThan(500);
      // 40 calls of CRITBINOM at its bound: each one allowed, together past the cell's work
      const many = Array.from({ length: 40 }, () => call_("CRITBINOM", 1_000, 0.5, 0.5));
      expect(evaluate(fn("SUM", ...many.slice(0, 2))).value).toBe(1_000);
      expect(evaluate(fn("SUM", ...many)).value).toEqual(LIMIT);
    } finally {
      formulaLimits.cellMs = saved;
    }
  });

  it("a value past 100 KB is #LIMIT!", () => {
    // as a LOOKUP of long texts over many linked rows would give
    const texts = (n: number) => Array.from({ length: n }, (_, i) => `${i}`.padEnd(3_000, "x"));
    expect(evaluate(col("a"), { a: texts(40) }).value).toEqual(LIMIT);
    expect(evaluate(fn("SORT", col("a")), { a: texts(40) }).value).toEqual(LIMIT);
    expect(evaluate(col("a"), { a: texts(30) }).value).toHaveLength(30);
  });

  it("a list past 10,000 elements is #LIMIT! before any function receives it", () => {
    const many = Array.from({ length: 10_001 }, (_, i) => i % 7);
    expect(evaluate(fn("SUM", col("a")), { a: many }).value).toEqual(LIMIT);
    expect(withoutClock(() => evaluate(fn("SUM", col("a")), { a: many.slice(1) })).value).toBe(
      many.slice(1).reduce((x, y) => x + y, 0),
    );
  });

  it("an evaluation past 50 ms stops and is #LIMIT!, whatever its calls", () => {
    const { value, ms } = evaluate(wideFormula(128));
    expect(value).toEqual(LIMIT);
    expect(ms).toBeLessThan(formulaLimits.cellMs + 100);
    expect(evaluate(wideFormula(2)).value).toBe(200);
  });

  it("a pause of the process while a cheap cell runs is not the cell's cost: it is evaluated again, and only a cell slow every time is #LIMIT!", () => {
    // A busy wait inside the read of an input stands for the process being descheduled or collecting garbage.
    const pause = (ms: number) => {
      const end = performance.now() + ms;
      while (performance.now() < end);
    };
    const f = compileFormula(fn("ROUND", col("a"), lit(1)));
    let reads = 0;
    const pausedOnce = evaluateCell(f, () => {
      if (reads++ === 0) pause(4 * formulaLimits.cellMs + 20);
      return 2.25;
    });
    expect(pausedOnce).toBe(2.3);
    expect(reads).toBe(2);
    const slowEveryTime = evaluateCell(f, () => {
      pause(4 * formulaLimits.cellMs + 20);
      return 2.25;
    });
    expect(slowEveryTime).toEqual(LIMIT);
  });

  it("a #LIMIT! cell read by another formula propagates like any error", () => {
    expect(evaluate(op("+", col("a"), lit(1)), { a: new Error("#LIMIT!") }).value).toEqual(LIMIT);
  });
});

describe("E3 and row writes", () => {
  let t: Tenant;
  beforeAll(async () => {
    t = await seedTenant();
  });

  const apply = (columnId: string, expression: Expr) =>
    call("POST", `/table/column/${columnId}/computed/apply`, {
      token: t.owner.token,
      body: { description: [text("f")], expression },
    });

  it("MUNIT past its bound stores #NUM! instead of answering 500 (SQLITE_TOOBIG)", async () => {
    const table = await seedTable(t, [{ name: "F", type: "text" }]);
    const rows = await seedRows(table, [{ Name: "a" }]);
    const res = await apply(table.col.F!, call_("MUNIT", 1100));
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect((await cellValues(table.col.F!)).get(rows[0]!)).toEqual(NUM);
  });

  it("CRITBINOM(1e9, 0.5, 0.99) and DB(1e9, 1, 1e9, 1e9, 12) answer at once, and later row writes stay fast", async () => {
    const table = await makeTable(t.owner.token, t.projectId, "Slow");
    const n = (await addColumn(t.owner.token, table.tableId, "N", { type: "number" }))._id;
    const crit = (await addColumn(t.owner.token, table.tableId, "Crit", { type: "text" }))._id;
    const db = (await addColumn(t.owner.token, table.tableId, "Dep", { type: "text" }))._id;
    for (let i = 0; i < 3; i++) await addRow(t.owner.token, table.tableId, { [n]: 1e9 });
    const t0 = Date.now();
    expect((await apply(crit, fn("CRITBINOM", col(n), lit(0.5), lit(0.99)))).status).toBe(200);
    expect((await apply(db, fn("DB", col(n), lit(1), col(n), col(n), lit(12)))).status).toBe(200);
    const row = await addRow(t.owner.token, table.tableId, { [n]: 1e9 });
    const listed = await ok("GET", `/table/${table.tableId}/rows`, { token: t.owner.token });
    expect(Date.now() - t0).toBeLessThan(5_000);
    const cellsOf = (r: { cells: Record<string, unknown> }) => [r.cells[crit], r.cells[db]];
    expect(listed.data.map(cellsOf)).toEqual(Array.from({ length: 4 }, () => [NUM, NUM]));
    expect(row.cells.find((c: { columnId: string }) => c.columnId === crit).data).toEqual(NUM);
  });

  it("a formula past the per-cell budget stores #LIMIT! in every row", async () => {
    const table = await seedTable(t, [{ name: "F", type: "text" }]);
    const rows = await seedRows(
      table,
      Array.from({ length: 3 }, (_, i) => ({ Name: `r${i}` })),
    );
    const t0 = Date.now();
    const res = await apply(table.col.F!, wideFormula(128));
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(Date.now() - t0).toBeLessThan(3_000);
    const values = await cellValues(table.col.F!);
    expect(rows.map((r) => values.get(r))).toEqual([LIMIT, LIMIT, LIMIT]);
  });

  it("a whole-table apply past its run budget is 422 and persists nothing", async () => {
    const table = await seedTable(t, [{ name: "F", type: "text" }]);
    await seedRows(
      table,
      Array.from({ length: 200 }, (_, i) => ({ Name: `r${i}` })),
    );
    const saved = formulaLimits.runMs;
    formulaLimits.runMs = 400;
    try {
      const res = await apply(table.col.F!, wideFormula(16));
      expect(res.status, JSON.stringify(res.body)).toBe(422);
      expect(res.body.error).toBe("UnprocessableEntityError");
    } finally {
      formulaLimits.runMs = saved;
    }
    expect((await columnRecord(table.col.F!))!.data.type).toBe("text");
    expect((await cellValues(table.col.F!)).size).toBe(0);
  });

  it("a whole-table apply whose values pass the run's bytes is 422 and persists nothing", async () => {
    const table = await seedTable(t, [{ name: "F", type: "text" }]);
    await seedRows(
      table,
      Array.from({ length: 20 }, (_, i) => ({ Name: `r${i}` })),
    );
    const saved = formulaLimits.runBytes;
    formulaLimits.runBytes = 5_000;
    try {
      const res = await apply(table.col.F!, call_("REPT", "x", 500));
      expect(res.status, JSON.stringify(res.body)).toBe(422);
      expect(res.body.message).toMatch(/MiB of values/);
    } finally {
      formulaLimits.runBytes = saved;
    }
    expect((await cellValues(table.col.F!)).size).toBe(0);
    expect((await apply(table.col.F!, call_("REPT", "x", 500))).status).toBe(200);
  });

  it("a bulk row write past the run budget stores its rows, with #LIMIT! in the cells left uncomputed", async () => {
    const table = await makeTable(t.owner.token, t.projectId, "Bulk");
    const f = (await addColumn(t.owner.token, table.tableId, "F", { type: "text" }))._id;
    expect((await apply(f, wideFormula(2))).status).toBe(200);
    const saved = formulaLimits.runUnits;
    formulaLimits.runUnits = 10_000_000;
    try {
      const res = await call("POST", `/table/${table.tableId}/rows`, {
        token: t.owner.token,
        body: { rows: Array.from({ length: 60 }, () => ({ cells: {} })) },
      });
      expect(res.status, JSON.stringify(res.body)).toBe(200);
    } finally {
      formulaLimits.runUnits = saved;
    }
    const listed = await ok("GET", `/table/${table.tableId}/rows`, { token: t.owner.token });
    const values = listed.data.map((r: { cells: Record<string, unknown> }) => r.cells[f]);
    expect(values).toHaveLength(60);
    expect(values[0]).toBe(200);
    expect(values.at(-1)).toEqual(LIMIT);
  });

  it("a long apply on one table lets a request on another table through", async () => {
    const big = await seedTable(t, [{ name: "F", type: "text" }]);
    // Enough rows that the apply outlasts a one-row read on a fast, quiet machine too.
    await seedRows(
      big,
      Array.from({ length: 2_000 }, (_, i) => ({ Name: `r${i}` })),
    );
    const other = await seedTable(t, [{ name: "X", type: "number" }]);
    await seedRows(other, [{ Name: "x", X: 1 }]);
    // this test is about yielding, not the run's budget
    const saved = formulaLimits.runUnits;
    formulaLimits.runUnits = Number.POSITIVE_INFINITY;
    let applyDone = 0;
    const applying = apply(big.col.F!, wideFormula(8)).then((r) => {
      applyDone = Date.now();
      return r;
    });
    await new Promise((r) => setTimeout(r, 50));
    const listed = await ok("GET", `/table/${other.tableId}/rows`, { token: t.owner.token });
    const listedAt = Date.now();
    expect(listed.data).toHaveLength(1);
    const res = await applying;
    formulaLimits.runUnits = saved;
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    // The other table's read did not wait for the apply (whose length depends on the machine).
    expect(listedAt).toBeLessThan(applyDone);
  });
});
