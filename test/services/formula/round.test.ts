/**
 * ROUND, ROUNDUP and ROUNDDOWN take a direct path for plain numbers (src/services/formula/functions.ts,
 * roundLike): it must give exactly the library's results, for every number and digit count.
 */
import { describe, expect, it } from "vitest";
import fc from "fast-check";
import * as formulajs from "@formulajs/formulajs";
import { FUNCTION_CATALOG } from "../../../src/services/formula/functions";

const library = { ROUND: formulajs.ROUND, ROUNDUP: formulajs.ROUNDUP, ROUNDDOWN: formulajs.ROUNDDOWN } as Record<
  string,
  (...a: unknown[]) => unknown
>;
const same = (a: unknown, b: unknown) =>
  a instanceof Error && b instanceof Error ? a.message === b.message : Object.is(a, b);

/** Any doubles, decimals, binary fractions (exact ties), points a few ulps around ties, and the bounds of plain-number text. */
const numbers = fc.oneof(
  fc.double({ noNaN: true }),
  fc.tuple(fc.integer({ min: -1e15, max: 1e15 }), fc.integer({ min: 0, max: 15 })).map(([m, e]) => m / 10 ** e),
  fc.integer({ min: -1e9, max: 1e9 }).map((i) => i / 8),
  fc
    .tuple(fc.integer({ min: -1e9, max: 1e9 }), fc.integer({ min: 0, max: 6 }), fc.integer({ min: -4, max: 4 }))
    .map(([k, e, u]) => ((k + 0.5) / 10 ** e) * (1 + u * 2 ** -52)),
  fc
    .tuple(fc.constantFrom(1e-6, 1e21, 1e-7, 9.999999999999999e20, 2 ** 53), fc.integer({ min: -3, max: 3 }))
    .map(([b, u]) => b * (1 + u * 2 ** -52)),
);

describe.each(["ROUND", "ROUNDUP", "ROUNDDOWN"])("%s", (name) => {
  const fast = FUNCTION_CATALOG.get(name)!.impl;
  const lib = library[name]!;

  it("is replaced by the direct path (the property below compares two different functions)", () => {
    expect(fast).not.toBe(lib);
  });

  it("gives the library's result on edge cases", () => {
    const numbers = [
      0,
      -0,
      1.005,
      2.5,
      -2.5,
      0.5,
      -0.5,
      1.45,
      123456789.123456,
      1e-7,
      -1e-7,
      1e20,
      1e21,
      9.999999999999999e20,
      0.1 + 0.2,
      5e-324,
      Number.MAX_VALUE,
      1 / 3,
      -2 / 3,
      1234.5678,
    ];
    const digits = [-22, -10, -3, -1, 0, 1, 2, 3, 10, 15, 20, 21, 300, 2.5, -0.5];
    for (const n of numbers)
      for (const d of digits) expect(same(fast(n, d), lib(n, d)), `${name}(${n}, ${d})`).toBe(true);
    for (const [n, d] of [
      ["2.345", 2],
      [true, 0],
      [null, 1],
      [2.345, "1"],
      [2.345, null],
      [new Error("#N/A"), 1],
      [Number.NaN, 1],
      [Infinity, 2],
    ] as Array<[unknown, unknown]>) {
      expect(same(fast(n, d), lib(n, d)), `${name}(${String(n)}, ${String(d)})`).toBe(true);
    }
  });

  it("gives the library's result for any number and digit count", () => {
    fc.assert(
      fc.property(numbers, fc.integer({ min: -25, max: 25 }), (n, d) => {
        expect(same(fast(n, d), lib(n, d)), `${name}(${n}, ${d})`).toBe(true);
      }),
      { numRuns: 50_000 },
    );
  });

  it("gives the library's result for numbers of a few decimals at their own digit counts (where ties and whole results are)", () => {
    fc.assert(
      fc.property(
        fc.integer({ min: -1e12, max: 1e12 }),
        fc.integer({ min: 0, max: 8 }),
        fc.integer({ min: -2, max: 2 }),
        (m, e, shift) => {
          const n = m / 10 ** e;
          const d = Math.max(0, e + shift);
          expect(same(fast(n, d), lib(n, d)), `${name}(${n}, ${d})`).toBe(true);
        },
      ),
      { numRuns: 50_000 },
    );
  });
});
