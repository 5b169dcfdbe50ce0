/** Request and response schemas of tables, columns, rows, cells and references (docs/api-guide.md › Tables, columns, rows, cells; Content, snapshots and references). */
import { z } from "@hono/zod-openapi";
import { maxJsonBytes } from "../openapi";
import { IdSchema } from "./ids";
import { DescriptionItemSchema, DescriptionSchema, ExpressionSchema } from "./formula";
import { MAX_FORMULA_TEXT } from "../services/formula/formulaText";
import { RESULT_TYPES } from "../services/formula/resultType";

export const COLUMN_TYPES = [
  "identifier",
  "text",
  "number",
  "checkbox",
  "date",
  "select",
  "multiSelect",
  "url",
  "email",
  "oneMany",
  "formula",
] as const;
export type ColumnType = (typeof COLUMN_TYPES)[number];

export const FILTER_OPS = ["eq", "neq", "lt", "lte", "gt", "gte", "contains", "in", "isEmpty", "isNotEmpty"] as const;
export type FilterOp = (typeof FILTER_OPS)[number];

export const NUMBER_AGGREGATIONS = [
  "none",
  "sum",
  "average",
  "median",
  "min",
  "max",
  "range",
  "count",
  "countEmpty",
  "countNotEmpty",
  "countUnique",
  "percentEmpty",
  "percentNotEmpty",
] as const;

export const MAX_SELECT_ITEMS = 1000;
export const MAX_FILTER_ITEMS = 20;

const SelectItem = z
  .object({ id: IdSchema, label: z.string().max(500), color: z.string().max(100) })
  .openapi("SelectItem");

const SelectItems = z
  .array(SelectItem)
  .max(MAX_SELECT_ITEMS)
  .superRefine((items, ctx) => {
    const seen = new Set<string>();
    items.forEach((item, i) => {
      if (seen.has(item.id))
        ctx.addIssue({ code: "custom", path: [i, "id"], message: `duplicate select item id ${item.id}` });
      seen.add(item.id);
    });
  });

const NumberOptions = z
  .object({
    format: z.string().min(1).max(64).optional().openapi({ example: "number" }),
    decimalPlaces: z.number().int().min(0).max(20).optional(),
    aggregation: z.enum(NUMBER_AGGREGATIONS).optional(),
  })
  .openapi("NumberOptions");

const FilterItem = z
  .object({
    targetColumnId: IdSchema,
    op: z.enum(FILTER_OPS),
    value: z.unknown().optional(),
    sourceColumnId: IdSchema.optional(),
  })
  .superRefine((item, ctx) => {
    if (item.op === "isEmpty" || item.op === "isNotEmpty") return;
    const hasValue = item.value !== undefined && item.value !== null;
    const hasSource = item.sourceColumnId !== undefined;
    if (hasValue === hasSource)
      ctx.addIssue({ code: "custom", message: `op ${item.op} compares with exactly one of value or sourceColumnId` });
    if (item.op === "in" && hasValue && !Array.isArray(item.value))
      ctx.addIssue({ code: "custom", path: ["value"], message: "op in needs an array value" });
  })
  .openapi("OneManyFilterItem");

export const OneManyOptions = z
  .object({
    tableId: IdSchema,
    filter: z.array(FilterItem).max(MAX_FILTER_ITEMS),
    filterConjunction: z.enum(["and", "or"]).default("and"),
  })
  .openapi("OneManyOptions");
export type OneManyOptions = z.infer<typeof OneManyOptions>;

export const FormulaTextSchema = z.string().min(1).max(MAX_FORMULA_TEXT).openapi({
  description: "The formula as typed, e.g. `{Price} * {Qty}` (docs/api-guide.md, Formulas as text)",
  example: "ROUND({Price} * {Qty}, 2)",
});

/**
 * A formula as a column write gives it: its text (what people type), or the compiled tree (E3's form).
 * `resultType` is read-only (what the column answers with) and ignored, so a client can send back what it read.
 */
export const FormulaInputSchema = z
  .strictObject({
    text: FormulaTextSchema.optional(),
    expression: ExpressionSchema.optional(),
    description: DescriptionSchema.optional(),
    resultType: z.string().max(32).optional().openapi({ description: "Ignored: read-only" }),
  })
  .refine((f) => f.text !== undefined || f.expression !== undefined, {
    message: "a formula needs its text (or its expression)",
  })
  .openapi("FormulaInput", { description: "`text` first; when both are given, `text` wins." });
export type FormulaInput = z.infer<typeof FormulaInputSchema>;

export const ResultTypeSchema = z.enum(RESULT_TYPES).openapi("FormulaResultType", {
  description: [
    "The type of value a formula yields, inferred from its tree and the columns it reads; `unknown` when it depends on the data.",
    "It is the shape of the column's cell values: number → a JSON number; text → a string; boolean → true/false; date → milliseconds",
    'since 1970 (a number, as date columns hold); array → a JSON array (a lookup\'s list, SEQUENCE…); error → `{ "error": "#DIV/0!" }`-style;',
    "any formula cell may also hold an error object or null (blank).",
  ].join(" "),
});

/**
 * `data` of a column: the type plus its options. `data` is typed object by the specification, so members this
 * service does not interpret (display options, say) are kept and returned as sent.
 */
export const ColumnDataInput = z
  .discriminatedUnion("type", [
    z.looseObject({ type: z.literal("identifier") }),
    z.looseObject({ type: z.literal("text") }),
    z.looseObject({ type: z.literal("number"), number: NumberOptions.optional() }),
    z.looseObject({ type: z.literal("checkbox") }),
    z.looseObject({ type: z.literal("date") }),
    z.looseObject({ type: z.literal("select"), selectItems: SelectItems.default([]) }),
    z.looseObject({ type: z.literal("multiSelect"), selectItems: SelectItems.default([]) }),
    z.looseObject({ type: z.literal("url") }),
    z.looseObject({ type: z.literal("email") }),
    z.looseObject({ type: z.literal("oneMany"), oneMany: OneManyOptions }),
    // A formula column's data is closed: a member this service would not act on (a misspelt `formula`) is 400, not dropped.
    z.strictObject({
      type: z.literal("formula"),
      formula: FormulaInputSchema.optional(),
      number: NumberOptions.optional(),
    }),
  ])
  .refine(...maxJsonBytes(256 * 1024))
  // A formula given with another type would be kept as an inert member; say so instead.
  .refine((d) => d.type === "formula" || !("formula" in d), {
    message: "formula is for formula columns: set type to formula",
    path: ["formula"],
  })
  .openapi("ColumnDataInput");
export type ColumnDataInput = z.infer<typeof ColumnDataInput>;

export const TableSchema = z
  .object({
    _id: z.string(),
    projectId: z.string(),
    workspaceId: z.string(),
    documentId: z.string().nullable(),
    userId: z.string(),
    name: z.string(),
    createdAt: z.number(),
    updatedAt: z.number(),
    isDeleted: z.boolean(),
  })
  .openapi("Table");

export const ColumnDataSchema = z
  .looseObject({
    type: z.enum(COLUMN_TYPES),
    selectItems: z.array(SelectItem).optional(),
    number: NumberOptions.optional(),
    oneMany: OneManyOptions.optional(),
    formula: z.object({ text: z.string(), expression: z.unknown(), resultType: ResultTypeSchema }).optional().openapi({
      description:
        "A formula column's formula: its canonical text (columns by their current names), its tree, its result type",
    }),
  })
  .openapi("ColumnData");

export const ColumnFormulaSchema = z
  .object({
    text: z.string().openapi({ description: "The canonical text, columns by their current names" }),
    expression: z.unknown().openapi({ $ref: "#/components/schemas/FormulaExpr" } as object),
    description: z.array(DescriptionItemSchema),
    resultType: ResultTypeSchema,
  })
  .openapi("ColumnFormula");

export const ColumnSchema = z
  .object({
    _id: z.string(),
    projectId: z.string(),
    tableId: z.string(),
    workspaceId: z.string(),
    name: z.string(),
    slug: z.string(),
    originId: z.string(),
    description: z.string(),
    isIdentifier: z.boolean(),
    data: ColumnDataSchema,
    formula: ColumnFormulaSchema.optional().openapi({
      description: "The persisted formula of a formula column: text, tree (E3), description, result type",
    }),
    createdAt: z.number(),
    updatedAt: z.number(),
    isDeleted: z.boolean(),
  })
  .openapi("Column");

export const RowSchema = z
  .object({
    _id: z.string(),
    projectId: z.string(),
    tableId: z.string(),
    workspaceId: z.string(),
    ownerId: z.string(),
    originId: z.string(),
    createdAt: z.number(),
    updatedAt: z.number(),
    isDeleted: z.boolean(),
  })
  .openapi("Row");

export const CellSchema = z
  .object({
    _id: z.string(),
    tableId: z.string(),
    rowId: z.string(),
    columnId: z.string(),
    workspaceId: z.string(),
    originId: z.string(),
    isIdentifier: z.boolean(),
    data: z.unknown().openapi({ description: "The typed value (docs/api-guide.md › Tables, columns, rows, cells)" }),
    createdAt: z.number(),
    updatedAt: z.number(),
    isDeleted: z.boolean(),
  })
  .openapi("Cell");

export const CellValuesSchema = z.record(z.string(), z.unknown()).openapi("CellValues", {
  description: "Values by column id; every live column is present (null when empty); oneMany values are computed",
});

export const RowWithCellValuesSchema = RowSchema.extend({ cells: CellValuesSchema }).openapi("RowWithCellValues");

/** A row as a query answers it (docs/api-guide.md › Querying rows): `expanded` and `truncated` with `expand`. */
export const QueriedRowSchema = RowWithCellValuesSchema.extend({
  commentCount: z
    .number()
    .int()
    .optional()
    .openapi({ description: "Live comments on the row and its cells (docs/api-guide.md › Comments)" }),
  openCommentCount: z.number().int().optional().openapi({ description: "Those of them in open threads" }),
  expanded: z.record(z.string(), z.array(z.unknown())).optional(),
  truncated: z.record(z.string(), z.boolean()).optional(),
}).openapi("QueriedRow");

export const QueryWarningSchema = z.object({ columnId: z.string(), message: z.string() }).openapi("QueryWarning");

export const QueriedRowsPage = z
  .object({
    data: z.array(QueriedRowSchema),
    nextCursor: z.string().nullable(),
    warnings: z.array(QueryWarningSchema).optional(),
  })
  .openapi("RowsPage");

export const TableReferenceSchema = z
  .object({
    _id: z.string(),
    originId: z.string(),
    documentId: z.string(),
    workspaceId: z.string(),
    tableId: z.string(),
    columnId: z.string(),
    relatedRowId: z.string().nullable(),
    rowId: z.string().nullable(),
    oneToManyColumnId: z.string().nullable(),
    oneToManyInstanceIds: z.array(z.string()),
    columnName: z.string(),
    tableName: z.string(),
    type: z.enum(["relation", "reference", "global"]),
    createdAt: z.number(),
    updatedAt: z.number(),
  })
  .openapi("TableReference");

export const ClauseReferenceSchema = z
  .object({
    _id: z.string(),
    blockId: z.string(),
    documentId: z.string(),
    workspaceId: z.string(),
    hierarchy: z.string(),
    originId: z.string(),
    createdAt: z.number(),
    updatedAt: z.number(),
    isDeleted: z.boolean(),
  })
  .openapi("ClauseReference");

export const SuccessSchema = z.object({ success: z.literal(true) }).openapi("Success");
