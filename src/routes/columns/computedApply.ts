import { defineRoute, ctxOf } from "../../http/route";
import { z } from "@hono/zod-openapi";
import { errorResponses, jsonBody, jsonResponse, pathId, type Router } from "../../openapi";
import { MAX_FORMULA_DEPTH } from "../../services/formula/expression";
import { ApplyFormulaBodySchema, ExprSchema } from "../../schemas/formula";
import { applyComputedColumn } from "../../services/tables/columns";

const route = defineRoute({
  operationId: "applyComputedColumn",
  method: "post",
  path: "/table/column/{columnId}/computed/apply",
  tags: ["Tables"],
  summary: "E3. Apply a formula to every row",
  description: [
    "Takes the formula as typed (`text`, e.g. `{Price} * {Qty}`; docs/api-guide.md, Formulas as text) or as its compiled tree",
    "(`expression` with its `description`). Text errors are 422 with the 1-based line and column of each problem in `details`.",
    'Validates the formula tree against the column\'s table, persists it on the column (which becomes `data.type: "formula"`),',
    "and computes it — and every formula column that depends on it — for every live row. `updatedRows` counts rows whose",
    "stored value changed. Applications to one table are serialized. Write access to the project is needed",
    "(workspace owner, admin or editor). The identifier column cannot become a formula (409). Unknown columns or",
    `functions, a wrong number of arguments, a tree deeper than ${MAX_FORMULA_DEPTH} or a cycle through other formula`,
    'columns are 422 and nothing is persisted. A row whose evaluation fails stores `{ "error": "#DIV/0!" }`-style values;',
    "a cell past its budget (50 ms, a 100 KB value) stores `#LIMIT!`, a call past its function's argument bounds `#NUM!`, and an",
    "apply past the table computation budget is 422 with nothing persisted (docs/api-guide.md, Resource bounds).",
  ].join(" "),
  request: {
    params: z.object({ columnId: pathId("columnId") }),
    ...jsonBody(ApplyFormulaBodySchema),
  },
  responses: {
    200: jsonResponse(z.object({ updatedRows: z.number().int() }).openapi("ApplyFormulaResult")),
    ...errorResponses("ConflictError", "UnprocessableEntityError"),
  },
});

export function registerApplyComputedColumn(app: Router) {
  app.openAPIRegistry.register("FormulaExpr", ExprSchema);
  app.openapi(route, async (c) => {
    const { columnId } = c.req.valid("param");
    const { description, expression, text } = c.req.valid("json");
    const result = await applyComputedColumn(ctxOf(c), { columnId, description, expression, text });
    return c.json({ updatedRows: result.updatedRows }, 200);
  });
}
