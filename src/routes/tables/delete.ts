import { defineRoute, ctxOf } from "../../http/route";
import { z } from "@hono/zod-openapi";
import { expectedVersionOf } from "../../http/conditional";
import { errorResponses, okData, pathId, type Router } from "../../openapi";
import { deleteTable } from "../../services/tables/tables";
import { SuccessSchema } from "../../schemas/tables";

const route = defineRoute({
  operationId: "deleteTable",
  auth: "batched",
  method: "delete",
  path: "/table/{tableId}",
  tags: ["Tables"],
  summary: "Soft-delete a table; its columns, rows and cells vanish with it",
  description: "`If-Match` with the table's ETag (from its GET): a mismatch is 412 and nothing changes.",
  request: { params: z.object({ tableId: pathId("tableId") }) },
  responses: { ...okData(SuccessSchema), ...errorResponses("PreconditionFailedError") },
});

export function registerDeleteTable(app: Router) {
  app.openapi(route, async (c) => {
    await deleteTable(ctxOf(c), { tableId: c.req.valid("param").tableId, expected: expectedVersionOf(c) });
    return c.json({ data: { success: true as const } }, 200);
  });
}
