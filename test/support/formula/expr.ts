/** Builders for formula trees (docs/api-guide.md › Formulas) used by the formula tests. */
import type { Expr } from "../../../src/services/formula/expression";

type Op = Extract<Expr, { kind: "op" }>["op"];

export const lit = (value: string | number | boolean | null): Expr => ({ kind: "literal", value });
export const col = (columnId: string): Expr => ({ kind: "column", columnId });
export const op = (o: Op, a: Expr, b: Expr): Expr => ({ kind: "op", op: o, args: [a, b] });
export const neg = (arg: Expr): Expr => ({ kind: "neg", arg });
export const fn = (name: string, ...args: Expr[]): Expr => ({ kind: "call", fn: name, args });
/** A chain of `depth` nodes: neg(neg(…(literal 1))). */
export function deepTree(depth: number): Expr {
  let e: Expr = lit(1);
  for (let i = 1; i < depth; i++) e = neg(e);
  return e;
}
export const text = (t: string) => ({ kind: "text" as const, text: t });
export const chip = (t: string, columnId: string) => ({ kind: "column" as const, text: t, columnId });
