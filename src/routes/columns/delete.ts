import { defineRoute } from "../../http/route";
import { z } from "@hono/zod-openapi";
import { errorResponses, okData, pathId, security, type Router } from "../../openapi";
import { requireTable } from "../../auth/access";
import { findLiveColumn, softDeleteColumn } from "../../services/tables/columns";
import { SuccessSchema } from "../../schemas/tables";

const route = defineRoute({
  operationId: "deleteColumn",
  method: "delete",
  path: "/table/column/{columnId}",
  tags: ["Columns"],
  summary: "Soft-delete a column (its cells vanish); the identifier column cannot be deleted (409)",
  security,
  request: { params: z.object({ columnId: pathId("columnId") }) },
  responses: { ...okData(SuccessSchema), ...errorResponses("ConflictError") },
});

export function registerDeleteColumn(app: Router) {
  app.openapi(route, async (c) => {
    const db = c.get("db");
    const column = await findLiveColumn(db, c.req.valid("param").columnId);
    await requireTable(db, c.get("user"), column.tableId, "write", { as: "Column" });
    await softDeleteColumn(db, column);
    return c.json({ data: { success: true as const } }, 200);
  });
}
