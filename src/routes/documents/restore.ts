import { defineRoute } from "../../http/route";
import { z } from "@hono/zod-openapi";
import { eq } from "drizzle-orm";
import { errorResponses, okData, pathId, security, type Router } from "../../openapi";
import { documents } from "../../db/schema";
import { requireDocument } from "../../auth/access";
import { restoreSubtree } from "../../services/documents/mutations";
import { documentsWithCollaborators } from "../../services/documents/serialize";
import { DocumentSchema } from "../../schemas/core";

const route = defineRoute({
  operationId: "restoreDocument",
  method: "post",
  path: "/document/{documentId}/restore",
  tags: ["Documents"],
  summary: "Restore a soft-deleted document with the subtree deleted along with it",
  description: "A document whose parent folder is still deleted answers 409: restore the folder first.",
  security,
  request: { params: z.object({ documentId: pathId("documentId") }) },
  responses: { ...okData(DocumentSchema.extend({ restoredDocuments: z.number() })), ...errorResponses("ConflictError") },
});

export function registerRestoreDocument(app: Router) {
  app.openapi(route, async (c) => {
    const db = c.get("db");
    const { documentId } = c.req.valid("param");
    const { doc } = await requireDocument(db, c.get("user"), documentId, "edit", { includeDeleted: true });
    const restoredDocuments = await restoreSubtree(db, doc);
    const [row] = await db.select().from(documents).where(eq(documents.id, documentId));
    const [dto] = await documentsWithCollaborators(db, [row!]);
    return c.json({ data: { ...dto!, restoredDocuments } }, 200);
  });
}
