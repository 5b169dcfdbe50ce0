import { defineRoute, ctxOf } from "../../http/route";
import { z } from "@hono/zod-openapi";
import { jsonWithEtag } from "../../http/conditional";
import { errorResponses, okData, pathId, type Router } from "../../openapi";
import { getTable } from "../../services/tables/tables";
import { TableSchema } from "../../schemas/tables";

const route = defineRoute({
  operationId: "getTable",
  auth: "batched",
  method: "get",
  path: "/table/{tableId}",
  tags: ["Tables"],
  summary: "Retrieve a table",
  description:
    "Carries a strong ETag; If-None-Match answers 304. Missing, deleted and unreadable tables are 404 alike.",
  request: { params: z.object({ tableId: pathId("tableId") }) },
  responses: {
    ...okData(TableSchema),
    ...errorResponses(),
    304: { description: "Not modified (If-None-Match matched the ETag)" },
  },
});

export function registerGetTable(app: Router) {
  app.openapi(route, async (c) => jsonWithEtag(c, { data: await getTable(ctxOf(c), c.req.valid("param")) }));
}
