/**
 * The compiled formula tree of docs/api-guide.md › Formulas and the E3 body, as zod schemas.
 *
 * Shape problems are 400 (ValidationError); meaning problems (unknown column or function, arity, depth, cycles)
 * are 422 and are checked later against the table (services/formula/validate.ts). The one overlap is depth: a
 * tree deeper than MAX_FORMULA_DEPTH is a meaning problem, but a recursive zod parse of an arbitrarily deep tree
 * would exhaust the stack (a 10 MiB body nests far deeper than any stack). So the depth is measured iteratively
 * first, and only a tree within the limit is shape-checked; a deeper one passes through marked `tooDeep` for the 422.
 */
import { z } from "@hono/zod-openapi";
import { IdSchema } from "./ids";
import {
  BINARY_OPS,
  LET_NAME,
  MAX_ARRAY_ITEMS,
  MAX_CALL_ARGS,
  MAX_FORMULA_DEPTH,
  MAX_FORMULA_TEXT,
  MAX_TEXT_LENGTH,
  measureTree,
  type DescriptionItem,
  type Expr,
  type ParsedExpression,
} from "../services/formula/expression";

// Nodes are z.object (not strict): `expression` is typed `any` by the specification, so members we do not
// know are dropped rather than rejected (docs/api-guide.md › Conventions).
const LiteralExpr = z.object({
  kind: z.literal("literal"),
  value: z.union([z.string().max(MAX_TEXT_LENGTH), z.number(), z.boolean(), z.null()]),
});
const ArrayExpr = z
  .object({
    kind: z.literal("array"),
    rows: z
      .array(
        z
          .array(z.union([z.string().max(MAX_TEXT_LENGTH), z.number(), z.boolean()]))
          .min(1)
          .max(MAX_ARRAY_ITEMS),
      )
      .min(1)
      .max(MAX_ARRAY_ITEMS),
  })
  .superRefine((node, ctx) => {
    const width = node.rows[0]?.length ?? 0;
    if (node.rows.some((r) => r.length !== width))
      ctx.addIssue({ code: "custom", path: ["rows"], message: "every row of an array constant has the same length" });
    else if (width * node.rows.length > MAX_ARRAY_ITEMS)
      ctx.addIssue({ code: "custom", path: ["rows"], message: `at most ${MAX_ARRAY_ITEMS} items` });
    else if (width * node.rows.length < 2)
      ctx.addIssue({
        code: "custom",
        path: ["rows"],
        message: "an array constant has at least two items (one value is a literal)",
      });
  });
const ColumnExpr = z.object({ kind: z.literal("column"), columnId: IdSchema });
const NameExpr = z.object({
  kind: z.literal("name"),
  name: z.string().min(1).max(255).regex(LET_NAME, "must be a name such as x or total_2"),
});
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
      'coerce (blank → 0, "3" → 3, other text → #VALUE!); `/` by zero is #DIV/0!; `%` is modulo with MOD semantics',
      "(a − b·INT(a/b), the sign of the divisor: -3 % 5 = 2). At most 64 levels deep and 1,000 nodes.",
    ].join(" "),
  }) as z.ZodType<Expr>;

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
      for (const issue of parsed.error.issues)
        ctx.addIssue({ code: "custom", message: issue.message, path: issue.path });
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
    description:
      "How the client shows the formula: literal text, or a column chip that names a column of the same table.",
  });

// The schema describes exactly the tree's DescriptionItem (checked when compiling).
type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;
const descriptionItemMatches: Same<z.infer<typeof DescriptionItemSchema>, DescriptionItem> = true;
void descriptionItemMatches;

export const DescriptionSchema = z.array(DescriptionItemSchema).max(5_000);

/** The E3 body. */
export const ApplyFormulaBodySchema = z
  .strictObject({
    text: z.string().min(1).max(MAX_FORMULA_TEXT).optional().openapi({
      description: "The formula as typed, e.g. `{Price} * {Qty}`; when given it wins over `expression`",
      example: "{Price} * {Qty}",
    }),
    description: DescriptionSchema.optional(),
    expression: ExpressionSchema.optional(),
  })
  .refine((b) => b.text !== undefined || b.expression !== undefined, {
    message: "the formula's text (or its compiled expression) is required",
    path: ["text"],
  })
  .openapi("ApplyFormulaBody", {
    description:
      "The formula: its `text` (what people type), or the compiled `expression` with its `description` (the specification's form).",
  });
