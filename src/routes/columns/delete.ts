import { defineRoute, ctxOf } from "../../http/route";
import { z } from "@hono/zod-openapi";
import { expectedVersionOf } from "../../http/conditional";
import { errorResponses, okData, pathId, type Router } from "../../openapi";
import { deleteColumn } from "../../services/tables/columns";
import { SuccessSchema } from "../../schemas/tables";

const route = defineRoute({
  operationId: "deleteColumn",
  auth: "batched",
  method: "delete",
  path: "/table/column/{columnId}",
  tags: ["Columns"],
  summary: "Soft-delete a column (its cells vanish); the identifier column cannot be deleted (409)",
  description:
    "`If-Match` takes the ETag of E11 (the table's column list) or of this column (from its POST/PATCH response): a mismatch is 412 and nothing changes.",
  request: { params: z.object({ columnId: pathId("columnId") }) },
  responses: { ...okData(SuccessSchema), ...errorResponses("ConflictError", "PreconditionFailedError") },
});

export function registerDeleteColumn(app: Router) {
  app.openapi(route, async (c) => {
    await deleteColumn(ctxOf(c), { columnId: c.req.valid("param").columnId, expected: expectedVersionOf(c) });
    return c.json({ data: { success: true as const } }, 200);
  });
}
