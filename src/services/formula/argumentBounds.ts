/**
 * The argument bounds of every library function whose cost grows with an argument, one rule per row
 * (docs/api-guide.md, "Resource bounds"), and the checks the evaluator runs with them before a call.
 *
 * The argument bounds were found by evaluating every function of the catalogue at growing arguments
 * (`npm run bench -- formula-bounds`); each one keeps its function's worst call to a few milliseconds, well
 * inside the per-cell budget, so no single library call can hold the isolate or exhaust its memory. A call past
 * a bound answers #NUM! (text repetition #VALUE!, as spreadsheets do) before the library runs.
 */
import { Errors, toNumber, toText, type FormulaValue } from "./values";
import {
  abs,
  ELEMENT_UNITS,
  itemCount,
  largest,
  MAX_TEXT,
  outside,
  over,
  textLength,
  type ArgumentBound,
  type Num,
} from "./limits";

/** Every argument bound and cost estimate, one row per rule. */
export const ARGUMENT_BOUNDS: readonly ArgumentBound[] = [
  // ---- text and lists --------------------------------------------------------------------------------------
  {
    functions: ["REPT"],
    rule: "the result's length (text length × count) at most 32,767 characters; a negative count is #VALUE!",
    exceeds: (num, args) => {
      const t = toText(args[0] ?? null);
      const n = num(1);
      return n !== undefined && typeof t === "string" && (n < 0 || t.length * n > MAX_TEXT);
    },
    error: "#VALUE!",
    example: { inside: ["ab", 16_000], past: ["ab", 16_384] },
  },
  {
    functions: ["TEXTJOIN"],
    rule: "the delimiters alone (delimiter length × number of items) at most 32,767 characters",
    exceeds: (_num, args) => {
      const d = toText(args[0] ?? null);
      let items = 0;
      for (const a of args.slice(2)) items += Array.isArray(a) ? a.length : 1;
      return typeof d === "string" && d.length * Math.max(0, items - 1) > MAX_TEXT;
    },
    error: "#VALUE!",
    example: { inside: ["; ", true, "a", "b"], past: ["-".repeat(16_384), true, "a", "b", "c"] },
  },
  {
    functions: ["SUBSTITUTE"],
    rule: "the result at most 32,767 characters",
    exceeds: (_num, args) => {
      const [text, old, repl] = args.slice(0, 3).map((v) => toText(v ?? null));
      if (
        typeof text !== "string" ||
        typeof old !== "string" ||
        typeof repl !== "string" ||
        old === "" ||
        args[3] !== undefined
      )
        return false;
      const occurrences = text.split(old).length - 1;
      return text.length + occurrences * (repl.length - old.length) > MAX_TEXT;
    },
    error: "#VALUE!",
    example: { inside: ["aaaa", "a", "-".repeat(8_000)], past: ["aaaa", "a", "-".repeat(8_192)] },
  },
  {
    functions: ["DOLLAR"],
    rule: "decimals from -127 to 127, as Excel (a million places took half a second)",
    exceeds: over(127, 1),
    error: "#VALUE!",
    example: { inside: [0.5, 20], past: [0.5, 128] },
  },
  {
    functions: ["ROMAN"],
    rule: "0 to 3,999 (as spreadsheets define it; the library writes one M per thousand)",
    exceeds: outside(0, 3_999, 0),
    error: "#VALUE!",
    example: { inside: [3_999], past: [4_000] },
  },
  {
    functions: ["MUNIT"],
    rule: "dimension at most 100 (10,000 elements)",
    exceeds: over(100, 0),
    cost: (num) => largest(num, 0) ** 2 * ELEMENT_UNITS,
    example: { inside: [100], past: [101] },
  },
  {
    functions: ["FREQUENCY", "CHOOSEROWS", "CHOOSECOLS"],
    cost: (_num, size) => size(0) * size(1) * 4,
  },
  {
    functions: ["LCM", "GCD"],
    cost: (_num, size, count) => Array.from({ length: count }, (_, i) => size(i)).reduce((a, b) => a + b, 0) * 150,
  },
  {
    functions: ["DEC2BIN", "DEC2HEX", "DEC2OCT", "HEX2BIN", "HEX2OCT", "OCT2BIN", "OCT2HEX", "BIN2HEX", "BIN2OCT"],
    rule: "places at most 10 (as spreadsheets define it)",
    exceeds: over(10, 1),
    example: { inside: [1, 10], past: [1, 11] },
  },
  {
    functions: ["BASE"],
    rule: "minimum length at most 255 (as spreadsheets define it)",
    exceeds: over(255, 2),
    example: { inside: [7, 2, 255], past: [7, 2, 256] },
  },
  // The library's factorial recurses once per unit with no floor: past 170 the result overflows anyway, and a
  // negative argument (or difference) recurses until the stack overflows, tens of milliseconds per call.
  {
    functions: ["FACT"],
    rule: "0 to 170 (the result overflows past it)",
    exceeds: outside(0, 170, 0),
    example: { inside: [170], past: [171] },
  },
  {
    functions: ["COMBIN", "PERMUT"],
    rule: "number and number chosen 0 to 170, number chosen at most number",
    exceeds: (num) => outside(0, 170, 0, 1)(num) || (num(1) ?? 0) > (num(0) ?? 0),
    example: { inside: [170, 3], past: [171, 3] },
  },
  {
    functions: ["COMBINA"],
    rule: "number and number chosen 0 to 170, together at most 171",
    exceeds: (num) => outside(0, 170, 0, 1)(num) || (num(0) ?? 0) + (num(1) ?? 0) > 171,
    example: { inside: [100, 3], past: [170, 3] },
  },
  {
    functions: ["MULTINOMIAL"],
    rule: "each number 0 to 170, their sum at most 170",
    exceeds: (_num, args) => {
      let sum = 0;
      const items: FormulaValue[] = [];
      const collect = (v: FormulaValue) => (Array.isArray(v) ? v.forEach(collect) : items.push(v));
      args.forEach(collect);
      for (const v of items) {
        const n = toNumber(v);
        if (typeof n !== "number") continue;
        if (!(n >= 0 && n <= 170)) return true;
        sum += n;
      }
      return sum > 170;
    },
    example: { inside: [100, 70], past: [100, 71] },
  },
  {
    functions: ["FACTDOUBLE"],
    rule: "at most 300 (past it the result overflows; the library recurses once per two units)",
    exceeds: over(300, 0),
    example: { inside: [300], past: [301] },
  },
  // The library's conditional aggregates compare every cell with every item of a criteria list.
  {
    functions: ["MINIFS", "MAXIFS", "SUMIFS", "AVERAGEIFS"],
    cost: (_num, size, count) => {
      let criteria = 0;
      for (let i = 2; i < count; i += 2) criteria += size(i);
      return size(0) * Math.max(1, criteria) * 10;
    },
  },
  // Matching text against text: every position of the text against every delimiter (or pattern character).
  {
    functions: ["TEXTBEFORE", "TEXTAFTER", "TEXTSPLIT"],
    cost: (_num, _size, _count, args) => textLength(args[0]) * (itemCount(args[1]) + itemCount(args[2] ?? null)),
  },
  {
    functions: ["SEARCH"],
    cost: (_num, _size, _count, args) => (textLength(args[0]) * textLength(args[1])) / 8,
  },
  {
    functions: ["SEQUENCE"],
    rule: "rows × columns at most 10,000 (the array cap)",
    exceeds: (num) => !(abs(num(0)) * (num(1) === undefined ? 1 : abs(num(1))) <= 10_000),
    cost: (num) => abs(num(0)) * (num(1) === undefined ? 1 : abs(num(1))) * ELEMENT_UNITS,
    example: { inside: [100, 100], past: [100, 101] },
  },
  // ---- dates -----------------------------------------------------------------------------------------------
  {
    functions: ["WORKDAY", "WORKDAY.INTL", "WORKDAYINTL"],
    rule: "days at most 100,000",
    exceeds: over(100_000, 1),
    example: { inside: [45_000, 1_000], past: [45_000, 100_001] },
  },
  {
    functions: ["NETWORKDAYS", "NETWORKDAYS.INTL", "NETWORKDAYSINTL"],
    rule: "start and end at most 100,000 days apart",
    exceeds: (num) => !(abs((num(0) ?? 0) - (num(1) ?? 0)) <= 100_000),
    example: { inside: [45_000, 46_000], past: [45_000, 145_001] },
  },
  // ---- iterative statistics --------------------------------------------------------------------------------
  {
    functions: ["CRITBINOM", "BINOM.INV"],
    rule: "trials at most 1,000",
    exceeds: over(1e3, 0),
    cost: (num) => largest(num, 0) * 800,
    example: { inside: [1_000, 0.5, 0.99], past: [1_001, 0.5, 0.99] },
  },
  {
    functions: ["BINOM.DIST.RANGE"],
    rule: "trials and successes 0 to 170 (the library's binomial coefficients overflow past it)",
    exceeds: (num) =>
      outside(0, 170, 0, 2, 3)(num) || (num(2) ?? 0) > (num(0) ?? 0) || (num(3) ?? num(2) ?? 0) > (num(0) ?? 0),
    cost: (num) => largest(num, 0) * 200,
    example: { inside: [100, 0.5, 40, 60], past: [171, 0.5, 40, 60] },
  },
  {
    functions: ["POISSON.DIST", "POISSONDIST"],
    rule: "x and mean at most 5,000",
    exceeds: over(5e3, 0, 1),
    cost: (num) => largest(num, 0, 1) ** 2 / 50,
    example: { inside: [100, 90, true], past: [5_001, 4_900, true] },
  },
  {
    functions: ["NEGBINOM.DIST", "NEGBINOMDIST"],
    rule: "failures and successes at most 1,000",
    exceeds: over(1e3, 0, 1),
    cost: (num) => largest(num, 0, 1) * 400,
    example: { inside: [1_000, 5, 0.5, true], past: [10, 1_001, 0.5, true] },
  },
  {
    functions: ["HYPGEOM.DIST", "HYPGEOMDIST"],
    rule: "sizes 0 to 170, each sample part at most its population part (the library's binomial coefficients)",
    exceeds: (num) => {
      const [s_, n, m, pop] = [num(0) ?? 0, num(1) ?? 0, num(2) ?? 0, num(3) ?? 0];
      return outside(0, 170, 0, 1, 2, 3)(num) || s_ > n || s_ > m || n > pop || m > pop || n - s_ > pop - m;
    },
    cost: (num) => largest(num, 0) * 2_000,
    example: { inside: [1, 4, 8, 20, true], past: [1, 4, 8, 171, true] },
  },
  {
    functions: ["CHIDISTRT", "CHISQ.DIST.RT"],
    rule: "degrees of freedom at most 100,000",
    exceeds: over(1e5, 1),
    cost: (num) => largest(num, 1) / 4,
    example: { inside: [100_000, 100_000], past: [0.5, 100_001] },
  },
  {
    functions: ["CHIINV", "CHIINVRT", "CHISQ.INV", "CHISQ.INV.RT"],
    rule: "degrees of freedom at most 100,000",
    exceeds: over(1e5, 1),
    cost: (num) => largest(num, 1) / 4,
    example: { inside: [0.5, 100_000], past: [0.5, 100_001] },
  },
  {
    functions: ["CHIDIST", "CHISQ.DIST"],
    rule: "degrees of freedom at most 100,000",
    exceeds: over(1e5, 1),
    cost: (num) => largest(num, 1) / 4,
    example: { inside: [100_000, 100_000, true], past: [0.5, 100_001, true] },
  },
  {
    functions: ["GAMMA.DIST", "GAMMADIST"],
    rule: "alpha at most 100,000",
    exceeds: over(1e5, 1),
    cost: (num) => largest(num, 1) / 4,
    example: { inside: [100_000, 100_000, 1, true], past: [0.5, 100_001, 1, true] },
  },
  {
    functions: ["GAMMA.INV", "GAMMAINV"],
    rule: "alpha at most 100,000",
    exceeds: over(1e5, 1),
    cost: (num) => largest(num, 1) / 4,
    example: { inside: [0.5, 100_000, 1], past: [0.5, 100_001, 1] },
  },
  {
    functions: ["BESSELI", "BESSELJ", "BESSELK", "BESSELY"],
    rule: "order at most 1,000",
    exceeds: over(1e3, 1),
    cost: (num) => largest(num, 1) * 2,
    example: { inside: [2, 10], past: [2, 1_001] },
  },
  // ---- financial -------------------------------------------------------------------------------------------
  {
    functions: ["DB"],
    rule: "life and period at most 10,000",
    exceeds: over(1e4, 2, 3),
    cost: (num) => largest(num, 2, 3) * 4,
    example: { inside: [1e6, 1, 10_000, 10_000, 12], past: [1e6, 1, 10_001, 10_000, 12] },
  },
  {
    functions: ["DDB"],
    rule: "life and period at most 1,000",
    exceeds: over(1e3, 2, 3),
    cost: (num) => largest(num, 2, 3) * 100,
    example: { inside: [1e6, 1, 1_000, 1_000, 2], past: [1e6, 1, 1_001, 1_000, 2] },
  },
  {
    functions: ["VDB"],
    rule: "life at most 10,000 periods",
    exceeds: over(1e4, 2),
    cost: (num) => largest(num, 2) * 4,
    example: { inside: [2_400, 300, 10_000, 0, 1], past: [2_400, 300, 10_001, 0, 1] },
  },
  // Bonds: one step per coupon (at most 4 a year) between settlement and maturity; YIELD iterates PRICE.
  {
    functions: ["PRICE", "DURATION", "MDURATION", "COUPNUM", "COUPNCD", "COUPPCD", "COUPDAYBS", "COUPDAYSNC"],
    cost: (num) => (abs((num(1) ?? 0) - (num(0) ?? 0)) / 365) * 4 * 4,
  },
  {
    functions: ["YIELD"],
    cost: (num) => (abs((num(1) ?? 0) - (num(0) ?? 0)) / 365) * 4 * 400,
  },
  {
    functions: ["CUMIPMT", "CUMPRINC"],
    rule: "periods (number, start and end) at most 1,000",
    exceeds: over(1e3, 1, 3, 4),
    cost: (num) => largest(num, 3, 4) * 300,
    example: { inside: [0.01, 1_000, 1_000, 1, 1_000, 0], past: [0.01, 1_001, 1_000, 1, 1_000, 0] },
  },
];

const BOUNDS_BY_FUNCTION = new Map<string, ArgumentBound[]>();
for (const bound of ARGUMENT_BOUNDS) {
  for (const name of bound.functions) BOUNDS_BY_FUNCTION.set(name, [...(BOUNDS_BY_FUNCTION.get(name) ?? []), bound]);
}

/** The error a call answers with when its arguments pass a bound of its function, else undefined. */
export function argumentBoundError(name: string, args: readonly FormulaValue[]): Error | undefined {
  const bounds = BOUNDS_BY_FUNCTION.get(name);
  if (!bounds) return undefined;
  const num = numbersOf(args);
  for (const b of bounds) if (b.exceeds?.(num, args)) return b.error === "#VALUE!" ? Errors.value : Errors.num;
  return undefined;
}

/** The estimated work of a call (after its bounds passed), when its function has an estimate; else undefined. */
export function argumentCost(name: string, args: readonly FormulaValue[]): number | undefined {
  const bounds = BOUNDS_BY_FUNCTION.get(name);
  if (!bounds) return undefined;
  const num = numbersOf(args);
  const size = (i: number) => {
    const v = args[i];
    return v === undefined ? 0 : Array.isArray(v) ? v.length : 1;
  };
  let total: number | undefined;
  for (const b of bounds) if (b.cost) total = (total ?? 0) + b.cost(num, size, args.length, args);
  return total;
}

function numbersOf(args: readonly FormulaValue[]): Num {
  return (i) => {
    const v = args[i];
    if (v === undefined || Array.isArray(v)) return undefined;
    const n = toNumber(v);
    return typeof n === "number" ? n : undefined;
  };
}

/** Whether a function has argument bounds or a cost estimate (so its calls are checked). */
export function hasArgumentBounds(name: string): boolean {
  return BOUNDS_BY_FUNCTION.has(name);
}
