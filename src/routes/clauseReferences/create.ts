import { defineRoute } from "../../http/route";
import { z } from "@hono/zod-openapi";
import { errorResponses, IdSchemaBody, ignored, jsonBody, okData, security, type Router } from "../../openapi";
import { requireDocument } from "../../auth/access";
import { clauseReferenceDto, createClauseReference } from "../../services/references/clauseReferences";
import { ClauseReferenceSchema } from "../../schemas/tables";

/** `documentId/blockId[/…]`: at least two parts, none empty (API.md §9). */
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
  tags: ["References"],
  summary: "E4. Create a clause reference",
  description: "The caller supplies `_id` (pattern ^[A-Za-z0-9_-]{1,64}$; one already in use is 409). Needs edit access to the document.",
  security,
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
    const db = c.get("db");
    const body = c.req.valid("json");
    const { doc } = await requireDocument(db, c.get("user"), body.documentId, "edit");
    const row = await createClauseReference(db, doc, body);
    return c.json({ data: clauseReferenceDto(row) }, 200);
  });
}
