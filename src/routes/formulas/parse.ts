import { defineRoute, ctxOf } from "../../http/route";
import { z } from "@hono/zod-openapi";
import { errorResponses, jsonBody, okData, type Router } from "../../openapi";
import { IdSchema } from "../../schemas/ids";
import { FormulaTextSchema, ResultTypeSchema } from "../../schemas/tables";
import { parseFormulaForTable } from "../../services/tables/formulaParse";

const ParsedFormulaSchema = z
  .object({
    tree: z.unknown().openapi({ $ref: "#/components/schemas/FormulaExpr" } as object),
    text: z
      .string()
      .openapi({ description: "The canonical text: normalized spacing, function names as the catalogue spells them" }),
    references: z
      .array(z.string())
      .openapi({ description: "Ids of the columns the formula reads, in order of first mention" }),
    resultType: ResultTypeSchema,
  })
  .openapi("ParsedFormula");

const route = defineRoute({
  operationId: "parseFormula",
  method: "post",
  path: "/formula/parse",
  shard: { body: "tableId" },
  tags: ["Tables"],
  summary: "Check a typed formula against a table",
  description: [
    "Parses a formula as people type it (`{Price} * {Qty}`, `ROUND({Total} * 7%, 2)`; docs/api-guide.md, Formulas as text)",
    "against the table's columns and answers its compiled tree (the form E3 stores), canonical text, the columns it reads and",
    "its result type. Nothing is written. Problems are 422 with `details: [{ line, column, message, suggestions? }]` (1-based):",
    "unknown columns and functions with the nearest names, wrong argument counts with the signature, unbalanced brackets, and,",
    "when `columnId` names the column the formula is for, a reference cycle with its path. Needs read access to the table (else 404).",
  ].join(" "),
  roundTrips: 1,
  request: {
    ...jsonBody(
      z.strictObject({
        tableId: IdSchema,
        text: FormulaTextSchema,
        columnId: IdSchema.optional().openapi({
          description: "The column the formula is for, to check reference cycles through it",
        }),
      }),
    ),
  },
  responses: { ...okData(ParsedFormulaSchema), ...errorResponses("UnprocessableEntityError") },
});

export function registerParseFormula(app: Router) {
  app.openapi(route, async (c) => c.json({ data: await parseFormulaForTable(ctxOf(c), c.req.valid("json")) }, 200));
}
