/**
 * The compiled formula tree of docs/api-guide.md › Formulas and the E3 body, as zod schemas.
 *
 * Shape problems are 400 (ValidationError); meaning problems (unknown column or function, arity, depth, cycles)
 * are 422 and are checked later against the table (validate.ts). The one overlap is depth: a tree deeper than
 * MAX_FORMULA_DEPTH is a meaning problem, but a recursive zod parse of an arbitrarily deep tree would exhaust
 * the stack (a 10 MiB body nests far deeper than any stack). So the depth is measured iteratively first, and
 * only a tree within the limit is shape-checked; a deeper one passes through marked `tooDeep` for the 422.
 */
import { z } from "@hono/zod-openapi";
import { IdSchema } from "../../lib/ids";

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

// Nodes are z.object (not strict): `expression` is typed `any` by the specification, so members we do not
// know are dropped rather than rejected (docs/api-guide.md › Conventions).
const LiteralExpr = z.object({
  kind: z.literal("literal"),
  value: z.union([z.string().max(MAX_TEXT_LENGTH), z.number(), z.boolean(), z.null()]),
});
const ArrayExpr = z
  .object({
    kind: z.literal("array"),
    rows: z.array(z.array(z.union([z.string().max(MAX_TEXT_LENGTH), z.number(), z.boolean()])).min(1).max(MAX_ARRAY_ITEMS)).min(1).max(MAX_ARRAY_ITEMS),
  })
  .superRefine((node, ctx) => {
    const width = node.rows[0]?.length ?? 0;
    if (node.rows.some((r) => r.length !== width)) ctx.addIssue({ code: "custom", path: ["rows"], message: "every row of an array constant has the same length" });
    else if (width * node.rows.length > MAX_ARRAY_ITEMS) ctx.addIssue({ code: "custom", path: ["rows"], message: `at most ${MAX_ARRAY_ITEMS} items` });
    else if (width * node.rows.length < 2) ctx.addIssue({ code: "custom", path: ["rows"], message: "an array constant has at least two items (one value is a literal)" });
  });
const ColumnExpr = z.object({ kind: z.literal("column"), columnId: IdSchema });
const NameExpr = z.object({ kind: z.literal("name"), name: z.string().min(1).max(255).regex(LET_NAME, "must be a name such as x or total_2") });
const OpExpr = z.object({
  kind: z.literal("op"),
  op: z.enum(BINARY_OPS),
  get args() {
    // A 2-tuple; its size stated for OpenAPI too (JSON Schema's prefixItems alone does not bound it).
    return z.tuple([ExprSchema, ExprSchema]).openapi({ minItems: 2, maxItems: 2 });
  },
});
const NegExpr = z.object({
  kind: z.literal("neg"),
  get arg() {
    return ExprSchema;
  },
});
const CallExpr = z.object({
  kind: z.literal("call"),
  fn: z
    .string()
    .min(1)
    .max(64)
    .regex(/^[A-Za-z][A-Za-z0-9._]*$/, "must be a spreadsheet function name such as SUM or NORM.DIST"),
  get args() {
    return z.array(ExprSchema).max(MAX_CALL_ARGS);
  },
});

export const ExprSchema: z.ZodType<Expr> = z
  .discriminatedUnion("kind", [LiteralExpr, ArrayExpr, ColumnExpr, OpExpr, NegExpr, CallExpr, NameExpr])
  .openapi("FormulaExpr", {
    description: [
      "A compiled formula tree: literal | array (an array constant: rows of constants, `{1, 2; 3, 4}` in text) | column |",
      "op (binary operator) | neg (unary minus) | name (a name bound by LET: LET(name, value, …, calculation)) | call (spreadsheet function,",
      "any of the @formulajs/formulajs library by its spreadsheet name, case-insensitive). Operators have spreadsheet",
      "semantics: `&` concatenates text; `=` and `<>` and the orderings compare text case-insensitively; `+ - * / ^`",
      "coerce (blank → 0, \"3\" → 3, other text → #VALUE!); `/` by zero is #DIV/0!; `%` is modulo with MOD semantics",
      "(a − b·INT(a/b), the sign of the divisor: -3 % 5 = 2). At most 64 levels deep and 1,000 nodes.",
    ].join(" "),
  }) as z.ZodType<Expr>;

export interface MeasuredTree {
  depth: number;
  nodes: number;
}

/**
 * Depth (root = 1) and node count of a tree, iteratively and without trusting its shape; the walk stops once
 * the depth exceeds `stopAfterDepth` or the count exceeds `stopAfterNodes`.
 */
export function measureTree(value: unknown, stopAfterDepth = MAX_FORMULA_DEPTH, stopAfterNodes = MAX_FORMULA_NODES): MeasuredTree {
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

export const ExpressionSchema = z
  .unknown()
  .transform((value, ctx): ParsedExpression => {
    if (value === undefined) {
      ctx.addIssue({ code: "custom", message: "expression is required" });
      return z.NEVER;
    }
    const { depth } = measureTree(value);
    if (depth > MAX_FORMULA_DEPTH) return { tooDeep: true, depth };
    const parsed = ExprSchema.safeParse(value);
    if (!parsed.success) {
      for (const issue of parsed.error.issues) ctx.addIssue({ code: "custom", message: issue.message, path: issue.path });
      return z.NEVER;
    }
    return { tooDeep: false, expr: parsed.data };
  })
  .openapi({ $ref: "#/components/schemas/FormulaExpr" } as object);

export const DescriptionItemSchema = z
  .discriminatedUnion("kind", [
    z.strictObject({ kind: z.literal("text"), text: z.string().max(MAX_TEXT_LENGTH) }),
    z.strictObject({ kind: z.literal("column"), text: z.string().max(MAX_TEXT_LENGTH), columnId: IdSchema }),
  ])
  .openapi("FormulaDescriptionItem", {
    description: "How the client shows the formula: literal text, or a column chip that names a column of the same table.",
  });
export type DescriptionItem = z.infer<typeof DescriptionItemSchema>;

export const DescriptionSchema = z.array(DescriptionItemSchema).max(5_000);

/** The E3 body. */
export const ApplyFormulaBodySchema = z
  .strictObject({
    text: z
      .string()
      .min(1)
      .max(MAX_FORMULA_TEXT)
      .optional()
      .openapi({ description: "The formula as typed, e.g. `{Price} * {Qty}`; when given it wins over `expression`", example: "{Price} * {Qty}" }),
    description: DescriptionSchema.optional(),
    expression: ExpressionSchema.optional(),
  })
  .refine((b) => b.text !== undefined || b.expression !== undefined, { message: "the formula's text (or its compiled expression) is required", path: ["text"] })
  .openapi("ApplyFormulaBody", {
    description: "The formula: its `text` (what people type), or the compiled `expression` with its `description` (the specification's form).",
  });

/** What a formula column persists in `columns.formula`. */
export interface StoredFormula {
  expression: Expr;
  description: DescriptionItem[];
}
