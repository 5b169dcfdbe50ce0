import { defineRoute, ctxOf } from "../../http/route";
import { z } from "@hono/zod-openapi";
import { errorResponses, jsonBody, okData, pathId, type Router } from "../../openapi";
import { createRow } from "../../services/tables/rows";
import { CellSchema, RowSchema } from "../../schemas/tables";
import { RowInput } from "./schema";

const route = defineRoute({
  operationId: "createRow",
  method: "post",
  path: "/table/{tableId}/row",
  tags: ["Rows"],
  summary: "Add a row",
  description:
    "Each value is checked against its column's type (400 with a detail per problem; a computed column is 409). " +
    "`cells` in the response are the row's stored Cell records, ordered by column id: the values given and the formula cells " +
    "computed in this same request (a formula that evaluates to blank stores no cell).",
  request: { params: z.object({ tableId: pathId("tableId") }), ...jsonBody(RowInput) },
  responses: {
    ...okData(z.object({ row: RowSchema, cells: z.array(CellSchema) })),
    ...errorResponses("ConflictError"),
  },
});

export function registerCreateRow(app: Router) {
  app.openapi(route, async (c) => {
    const { row, cells } = await createRow(ctxOf(c), {
      tableId: c.req.valid("param").tableId,
      cells: c.req.valid("json").cells,
    });
    return c.json({ data: { row, cells } }, 200);
  });
}
