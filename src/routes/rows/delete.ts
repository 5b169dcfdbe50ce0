import { defineRoute, ctxOf } from "../../http/route";
import { z } from "@hono/zod-openapi";
import { expectedVersionOf } from "../../http/conditional";
import { errorResponses, okData, pathId, type Router } from "../../openapi";
import { deleteRow } from "../../services/tables/rows";
import { SuccessSchema } from "../../schemas/tables";

const route = defineRoute({
  operationId: "deleteRow",
  auth: "batched",
  method: "delete",
  path: "/table/row/{rowId}",
  tags: ["Rows"],
  summary: "Soft-delete a row (its cells vanish)",
  description: "`If-Match` with the row's ETag (from E16): a mismatch is 412 and nothing changes.",
  request: { params: z.object({ rowId: pathId("rowId") }) },
  responses: { ...okData(SuccessSchema), ...errorResponses("PreconditionFailedError") },
});

export function registerDeleteRow(app: Router) {
  app.openapi(route, async (c) => {
    await deleteRow(ctxOf(c), { rowId: c.req.valid("param").rowId, expected: expectedVersionOf(c) });
    return c.json({ data: { success: true as const } }, 200);
  });
}
