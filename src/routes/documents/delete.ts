import { defineRoute } from "../../http/route";
import { z } from "@hono/zod-openapi";
import { errorResponses, okData, pathId, security, type Router } from "../../openapi";
import { requireDocument } from "../../auth/access";
import { softDeleteSubtree } from "../../services/documents/mutations";

const route = defineRoute({
  operationId: "deleteDocument",
  method: "delete",
  path: "/document/{documentId}",
  tags: ["Documents"],
  summary: "Soft-delete a document and its subtree",
  security,
  request: { params: z.object({ documentId: pathId("documentId") }) },
  responses: { ...okData(z.object({ success: z.literal(true), deletedDocuments: z.number() })), ...errorResponses() },
});

export function registerDeleteDocument(app: Router) {
  app.openapi(route, async (c) => {
    const db = c.get("db");
    const { documentId } = c.req.valid("param");
    await requireDocument(db, c.get("user"), documentId, "edit");
    const deletedDocuments = await softDeleteSubtree(db, documentId);
    return c.json({ data: { success: true as const, deletedDocuments } }, 200);
  });
}
