import { defineRoute, ctxOf } from "../../http/route";
import { z } from "@hono/zod-openapi";
import { errorResponses, okData, pathId, type Router } from "../../openapi";
import { deleteClauseReference } from "../../services/references/clauseReferences";
import { SuccessSchema } from "../../schemas/tables";

const route = defineRoute({
  operationId: "deleteClauseReference",
  auth: "batched",
  method: "delete",
  path: "/clause-reference/{referenceId}",
  // A reference's `_id` may be the client's and name no shard: its service asks every shard.
  shard: "service",
  tags: ["References"],
  summary: "Soft-delete a clause reference (edit access to its document)",
  description:
    "Marks the clause reference deleted; it no longer appears in its document's list. Needs edit access to its document.",
  request: { params: z.object({ referenceId: pathId("referenceId") }) },
  responses: { ...okData(SuccessSchema), ...errorResponses() },
});

export function registerDeleteClauseReference(app: Router) {
  app.openapi(route, async (c) => {
    await deleteClauseReference(ctxOf(c), { id: c.req.valid("param").referenceId });
    return c.json({ data: { success: true as const } }, 200);
  });
}
