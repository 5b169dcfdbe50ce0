import { defineRoute, ctxOf } from "../../http/route";
import { z } from "@hono/zod-openapi";
import { errorResponses, jsonBody, okData, pathId, type Router } from "../../openapi";
import { bulkCreateRows, MAX_BULK_ROWS } from "../../services/tables/rows";
import { RowSchema } from "../../schemas/tables";
import { RowInput } from "./schema";

const route = defineRoute({
  operationId: "bulkCreateRows",
  method: "post",
  path: "/table/{tableId}/rows",
  tags: ["Rows"],
  summary: "Add 1–1000 rows, all or nothing",
  description:
    "Every value of every row is checked first (400 listing the problems with paths `rows.<i>.cells.<columnId>`; a computed column is 409); " +
    "then all rows and cells are written in one atomic D1 batch. The response lists the new rows in request order, each with `cells`: " +
    "the values this call stored and the row's formula cells as computed in this request (null when blank), by column id " +
    "(empty and oneMany columns are absent; GET …/rows returns every column).",
  request: {
    params: z.object({ tableId: pathId("tableId") }),
    ...jsonBody(z.strictObject({ rows: z.array(RowInput).min(1).max(MAX_BULK_ROWS) })),
  },
  responses: {
    ...okData(
      z.object({ rows: z.array(RowSchema.extend({ cells: z.record(z.string(), z.unknown()) }).openapi("CreatedRow")) }),
    ),
    ...errorResponses("ConflictError", "PayloadTooLargeError"),
  },
});

export function registerBulkCreateRows(app: Router) {
  app.openapi(route, async (c) => {
    const { rows } = await bulkCreateRows(ctxOf(c), {
      tableId: c.req.valid("param").tableId,
      rows: c.req.valid("json").rows.map((r) => r.cells),
    });
    return c.json({ data: { rows } }, 200);
  });
}
