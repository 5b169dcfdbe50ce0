import { defineRoute, ctxOf } from "../../http/route";
import { z } from "@hono/zod-openapi";
import { jsonWithEtag } from "../../http/conditional";
import { okData, onlyErrorResponses, pathId, type Router } from "../../openapi";
import { listColumns } from "../../services/tables/columns";
import { ColumnSchema } from "../../schemas/tables";

const route = defineRoute({
  operationId: "listColumns",
  auth: "batched",
  method: "get",
  path: "/table/columns/{tableId}",
  tags: ["Columns"],
  summary: "E11. List columns in a table",
  description:
    "Non-deleted columns in creation order, with their types and type-specific options. Needs project read access (else 404). " +
    "Carries a strong ETag (If-None-Match answers 304); PATCH/DELETE of a column accept it as If-Match.",
  request: { params: z.object({ tableId: pathId("tableId") }) },
  responses: {
    ...okData(z.array(ColumnSchema)),
    304: { description: "Not modified (If-None-Match matched the ETag)" },
    ...onlyErrorResponses("ValidationError", "UnauthorizedError", "NotFoundError", "RateLimitedError", "InternalError"),
  },
});

export function registerListColumns(app: Router) {
  app.openapi(route, async (c) => jsonWithEtag(c, { data: await listColumns(ctxOf(c), c.req.valid("param")) }));
}
