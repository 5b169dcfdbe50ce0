import { defineRoute } from "../../http/route";
import { z } from "@hono/zod-openapi";
import { okData, onlyErrorResponses, pathId, security, type Router } from "../../openapi";
import { requireTable } from "../../auth/access";
import { liveColumns } from "../../services/tables/columns";
import { columnDto } from "../../services/tables/serialize";
import { ColumnSchema } from "../../schemas/tables";

const route = defineRoute({
  operationId: "listColumns",
  method: "get",
  path: "/table/columns/{tableId}",
  tags: ["Columns"],
  summary: "E11. List columns in a table",
  description: "Non-deleted columns in creation order, with their types and type-specific options. Needs project read access (else 404).",
  security,
  request: { params: z.object({ tableId: pathId("tableId") }) },
  responses: {
    ...okData(z.array(ColumnSchema)),
    ...onlyErrorResponses("ValidationError", "UnauthorizedError", "NotFoundError", "RateLimitedError", "InternalError"),
  },
});

export function registerListColumns(app: Router) {
  app.openapi(route, async (c) => {
    const db = c.get("db");
    const { table } = await requireTable(db, c.get("user"), c.req.valid("param").tableId, "read");
    const cols = await liveColumns(db, table.id);
    return c.json({ data: cols.map(columnDto) }, 200);
  });
}
