/**
 * The compiled formula tree of docs/api-guide.md › Formulas: its types, bounds and an iterative measure of its
 * depth and size. Its request schemas (zod, OpenAPI) are in src/schemas/formula.ts.
 */

export const MAX_FORMULA_DEPTH = 64;
/** Spreadsheets cap a function at 255 arguments and a text value at 32,767 characters; so do we. */
export const MAX_CALL_ARGS = 255;
export const MAX_TEXT_LENGTH = 32_767;
/** Characters in one formula's text (spreadsheets allow 8,192). */
export const MAX_FORMULA_TEXT = 16_384;
/** Nodes in one tree; bounds evaluation work per row (checked as a meaning problem, 422). */
export const MAX_FORMULA_NODES = 1_000;

export const BINARY_OPS = ["+", "-", "*", "/", "%", "^", "&", "=", "<>", "<", "<=", ">", ">="] as const;
export type BinaryOp = (typeof BINARY_OPS)[number];

/** An item of an array constant: spreadsheets allow only constants there. */
export type ArrayItem = string | number | boolean;
/** Items in one array constant (`{1, 2; 3, 4}` has 4). */
export const MAX_ARRAY_ITEMS = 10_000;

export type Expr =
  | { kind: "literal"; value: string | number | boolean | null }
  | { kind: "array"; rows: ArrayItem[][] }
  | { kind: "column"; columnId: string }
  | { kind: "op"; op: BinaryOp; args: [Expr, Expr] }
  | { kind: "neg"; arg: Expr }
  | { kind: "call"; fn: string; args: Expr[] }
  /** A name bound by LET (`LET(x, 2, x * x)`): in LET's name positions, and in its values and calculation. */
  | { kind: "name"; name: string };

/** A LET name: letters, digits, `_` and `.`, starting with a letter or `_` (stored in capitals). */
export const LET_NAME = /^[A-Za-z_][A-Za-z0-9_.]*$/;

export interface MeasuredTree {
  depth: number;
  nodes: number;
}

/**
 * Depth (root = 1) and node count of a tree, iteratively and without trusting its shape; the walk stops once
 * the depth exceeds `stopAfterDepth` or the count exceeds `stopAfterNodes`.
 */
export function measureTree(
  value: unknown,
  stopAfterDepth = MAX_FORMULA_DEPTH,
  stopAfterNodes = MAX_FORMULA_NODES,
): MeasuredTree {
  let depth = 0;
  let nodes = 0;
  const stack: Array<[unknown, number]> = [[value, 1]];
  while (stack.length > 0) {
    const [node, d] = stack.pop()!;
    if (node === null || typeof node !== "object" || Array.isArray(node)) continue;
    nodes += 1;
    if (d > depth) depth = d;
    if (depth > stopAfterDepth || nodes > stopAfterNodes) break;
    const n = node as { arg?: unknown; args?: unknown };
    if (n.arg !== undefined) stack.push([n.arg, d + 1]);
    if (Array.isArray(n.args)) for (const child of n.args) stack.push([child, d + 1]);
  }
  return { depth, nodes };
}

/** A parsed `expression`: the tree when it is within the depth limit, else only its measurements (→ 422). */
export type ParsedExpression = { tooDeep: false; expr: Expr } | { tooDeep: true; depth: number };

/** How a client shows a formula: literal text, or a column chip naming a column (docs/api-guide.md › Formulas). */
export type DescriptionItem = { kind: "text"; text: string } | { kind: "column"; text: string; columnId: string };

/** What a formula column persists in `columns.formula`. */
export interface StoredFormula {
  expression: Expr;
  description: DescriptionItem[];
}
