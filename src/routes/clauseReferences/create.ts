import { defineRoute, ctxOf } from "../../http/route";
import { z } from "@hono/zod-openapi";
import { errorResponses, IdSchemaBody, ignored, jsonBody, okData, type Router } from "../../openapi";
import { createClauseReference } from "../../services/references/clauseReferences";
import { ClauseReferenceSchema } from "../../schemas/tables";

/** `documentId/blockId[/…]`: at least two parts, none empty (docs/api-guide.md › Content, snapshots and references). */
export const HierarchySchema = z
  .string()
  .max(2000)
  .refine((h) => {
    const parts = h.split("/");
    return parts.length >= 2 && parts.every((p) => p.trim().length > 0);
  }, "hierarchy is a /-separated path: referenced document id, block id, then optional further parts, none empty")
  .openapi({ example: "01JD5Y7X9Q0000000000000000/block-1" });

const route = defineRoute({
  operationId: "createClauseReference",
  method: "post",
  path: "/clause-reference",
  shard: { body: "documentId" },
  tags: ["References"],
  summary: "E4. Create a clause reference",
  description:
    "The caller supplies `_id` (pattern ^[A-Za-z0-9_-]{1,64}$; one already in use is 409). Needs edit access to the document.",
  request: jsonBody(
    z.strictObject({
      _id: IdSchemaBody,
      blockId: z.string().min(1).max(200),
      documentId: IdSchemaBody,
      hierarchy: HierarchySchema,
      ...ignored("workspaceId", "originId", "createdAt", "updatedAt", "isDeleted"),
    }),
  ),
  responses: { ...okData(ClauseReferenceSchema), ...errorResponses("ConflictError") },
});

export function registerCreateClauseReference(app: Router) {
  app.openapi(route, async (c) => {
    const { _id, blockId, documentId, hierarchy } = c.req.valid("json");
    return c.json({ data: await createClauseReference(ctxOf(c), { _id, blockId, documentId, hierarchy }) }, 200);
  });
}
