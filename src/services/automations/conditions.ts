/** `rowFilter` conditions (docs/api-guide.md › Automations, published portals, collaborative editing): predicates over a row's cells, combined by `conjunction`, nested by `group`. */
import type { ConditionValue } from "../../schemas/automations";

type Cells = Record<string, unknown>;

function isEmpty(v: unknown): boolean {
  return v === null || v === undefined || v === "" || (Array.isArray(v) && v.length === 0);
}

function compare(a: unknown, b: unknown): number | null {
  if (typeof a === "number" && typeof b === "number") return a - b;
  if (typeof a === "string" && typeof b === "string") return a < b ? -1 : a > b ? 1 : 0;
  if (typeof a === "number" && typeof b === "string" && b.trim() !== "" && !Number.isNaN(Number(b)))
    return a - Number(b);
  if (typeof a === "string" && typeof b === "number" && a.trim() !== "" && !Number.isNaN(Number(a)))
    return Number(a) - b;
  return null;
}

function equal(a: unknown, b: unknown): boolean {
  if (Array.isArray(a) && !Array.isArray(b)) return a.includes(b);
  if (typeof a === "object" || typeof b === "object") return JSON.stringify(a) === JSON.stringify(b);
  return compare(a, b) === 0 || a === b;
}

export function predicateHolds(cells: Cells, p: { columnId: string; op: string; value?: unknown }): boolean {
  const v = cells[p.columnId];
  switch (p.op) {
    case "isEmpty":
      return isEmpty(v);
    case "isNotEmpty":
      return !isEmpty(v);
    case "eq":
      return equal(v, p.value);
    case "neq":
      return !equal(v, p.value);
    case "lt":
    case "lte":
    case "gt":
    case "gte": {
      const c = compare(v, p.value);
      if (c === null) return false;
      return p.op === "lt" ? c < 0 : p.op === "lte" ? c <= 0 : p.op === "gt" ? c > 0 : c >= 0;
    }
    case "contains":
      if (Array.isArray(v)) return v.some((x) => equal(x, p.value));
      return typeof v === "string" && typeof p.value === "string" && v.toLowerCase().includes(p.value.toLowerCase());
    case "in":
      return (
        Array.isArray(p.value) &&
        (Array.isArray(v)
          ? v.some((x) => (p.value as unknown[]).some((y) => equal(x, y)))
          : (p.value as unknown[]).some((y) => equal(v, y)))
      );
    default:
      return false;
  }
}

/** True when the condition has something to test (predicates or groups). */
export function hasTests(c: ConditionValue | null | undefined): c is ConditionValue {
  if (!c) return false;
  const groups = c.group === undefined ? [] : Array.isArray(c.group) ? c.group : [c.group];
  return (c.predicates?.length ?? 0) > 0 || groups.some(hasTests);
}

export function conditionHolds(c: ConditionValue | null | undefined, cells: Cells): boolean {
  if (!hasTests(c)) return true;
  const groups = c.group === undefined ? [] : Array.isArray(c.group) ? c.group : [c.group];
  const results = [
    ...(c.predicates ?? []).map((p) => predicateHolds(cells, p)),
    ...groups.filter(hasTests).map((g) => conditionHolds(g, cells)),
  ];
  return c.conjunction === "or" ? results.some(Boolean) : results.every(Boolean);
}
