import { createRoute, z } from "@hono/zod-openapi";
import { errorResponses, okData, pathId, security, type Router } from "../../openapi";
import { documentAccess } from "../../auth/access";
import { documentsWithCollaborators } from "../../services/documents/serialize";
import { DocumentNotFoundSchema, DocumentSchema } from "../../schemas/core";

const route = createRoute({
  method: "get",
  path: "/document/{documentId}",
  tags: ["Documents"],
  summary: "E10. Retrieve a document",
  description: "Top-level metadata only. Missing, soft-deleted and unreadable documents all answer 404 with `{ data: { _id, isNotFound: true } }`.",
  security,
  request: { params: z.object({ documentId: pathId("documentId") }) },
  responses: {
    ...okData(DocumentSchema),
    ...errorResponses(),
    404: { description: "Missing, soft-deleted or unreadable", content: { "application/json": { schema: DocumentNotFoundSchema } } },
  },
});

export function registerGetDocument(app: Router) {
  app.openapi(route, async (c) => {
    const db = c.get("db");
    const { documentId } = c.req.valid("param");
    const access = await documentAccess(db, c.get("user")._id, documentId);
    if (!access || !access.canRead || access.doc.isDeleted) {
      return c.json({ data: { _id: documentId, isNotFound: true as const } }, 404);
    }
    const [dto] = await documentsWithCollaborators(db, [access.doc]);
    return c.json({ data: dto! }, 200);
  });
}
