import { defineRoute, ctxOf } from "../../http/route";
import { z } from "@hono/zod-openapi";
import { expectedVersionOf } from "../../http/conditional";
import { errorResponses, okData, pathId, type Router } from "../../openapi";
import { deleteView } from "../../services/views/views";
import { SuccessSchema } from "../../schemas/tables";

const route = defineRoute({
  operationId: "deleteView",
  auth: "batched",
  method: "delete",
  path: "/table/view/{viewId}",
  tags: ["Views"],
  summary: "Soft-delete a view",
  description:
    "Needs write access to the table. `If-Match` with the view's ETag: a mismatch is 412 and nothing changes.",
  request: { params: z.object({ viewId: pathId("viewId") }) },
  responses: { ...okData(SuccessSchema), ...errorResponses("PreconditionFailedError") },
});

export function registerDeleteView(app: Router) {
  app.openapi(route, async (c) => {
    await deleteView(ctxOf(c), { viewId: c.req.valid("param").viewId, expected: expectedVersionOf(c) });
    return c.json({ data: { success: true as const } }, 200);
  });
}
