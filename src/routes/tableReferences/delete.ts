import { defineRoute, ctxOf } from "../../http/route";
import { z } from "@hono/zod-openapi";
import { errorResponses, okData, pathId, type Router } from "../../openapi";
import { deleteTableReference } from "../../services/references/tableReferences";
import { SuccessSchema } from "../../schemas/tables";

const route = defineRoute({
  operationId: "deleteTableReference",
  auth: "batched",
  method: "delete",
  path: "/table/reference/{referenceId}",
  // A reference's `_id` may be the client's and name no shard: its service asks every shard.
  shard: "service",
  tags: ["References"],
  summary: "Delete a table reference (edit access to its document)",
  description:
    "Deletes the reference between a document and a table; the table itself is untouched. Needs edit access to the referencing document.",
  request: { params: z.object({ referenceId: pathId("referenceId") }) },
  responses: { ...okData(SuccessSchema), ...errorResponses() },
});

export function registerDeleteTableReference(app: Router) {
  app.openapi(route, async (c) => {
    await deleteTableReference(ctxOf(c), { id: c.req.valid("param").referenceId });
    return c.json({ data: { success: true as const } }, 200);
  });
}
