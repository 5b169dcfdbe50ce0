import { defineRoute } from "../../http/route";
import { z } from "@hono/zod-openapi";
import { errorResponses, okData, pathId, security, type Router } from "../../openapi";
import { requireTable } from "../../auth/access";
import { softDeleteTable } from "../../services/tables/tables";
import { SuccessSchema } from "../../schemas/tables";

const route = defineRoute({
  operationId: "deleteTable",
  method: "delete",
  path: "/table/{tableId}",
  tags: ["Tables"],
  summary: "Soft-delete a table; its columns, rows and cells vanish with it",
  security,
  request: { params: z.object({ tableId: pathId("tableId") }) },
  responses: { ...okData(SuccessSchema), ...errorResponses() },
});

export function registerDeleteTable(app: Router) {
  app.openapi(route, async (c) => {
    const db = c.get("db");
    const { table } = await requireTable(db, c.get("user"), c.req.valid("param").tableId, "write");
    await softDeleteTable(db, table);
    return c.json({ data: { success: true as const } }, 200);
  });
}
