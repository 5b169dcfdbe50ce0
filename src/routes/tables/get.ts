import { defineRoute } from "../../http/route";
import { z } from "@hono/zod-openapi";
import { errorResponses, okData, pathId, security, type Router } from "../../openapi";
import { requireTable } from "../../auth/access";
import { tableDto } from "../../services/tables/serialize";
import { TableSchema } from "../../schemas/tables";

const route = defineRoute({
  operationId: "getTable",
  method: "get",
  path: "/table/{tableId}",
  tags: ["Tables"],
  summary: "Retrieve a table",
  security,
  request: { params: z.object({ tableId: pathId("tableId") }) },
  responses: { ...okData(TableSchema), ...errorResponses() },
});

export function registerGetTable(app: Router) {
  app.openapi(route, async (c) => {
    const { table } = await requireTable(c.get("db"), c.get("user"), c.req.valid("param").tableId, "read");
    return c.json({ data: tableDto(table) }, 200);
  });
}
