import { z } from "@hono/zod-openapi";
import { ctxOf, defineRoute } from "../../http/route";
import { expectedVersionOf } from "../../http/conditional";
import { errorResponses, okData, pathId, type Router } from "../../openapi";
import { deleteDocument } from "../../services/documents/update";

const route = defineRoute({
  operationId: "deleteDocument",
  auth: "batched",
  method: "delete",
  path: "/document/{documentId}",
  tags: ["Documents"],
  summary: "Soft-delete a document and its subtree",
  description:
    "Needs edit access. `If-Match` with the document's ETag (E10) makes the delete conditional: 412 and nothing deleted when it changed.",
  request: { params: z.object({ documentId: pathId("documentId") }) },
  responses: {
    ...okData(z.object({ success: z.literal(true), deletedDocuments: z.number() })),
    ...errorResponses("PreconditionFailedError"),
  },
});

export function registerDeleteDocument(app: Router) {
  app.openapi(route, async (c) => {
    const { deletedDocuments } = await deleteDocument(ctxOf(c), {
      documentId: c.req.valid("param").documentId,
      expected: expectedVersionOf(c),
    });
    return c.json({ data: { success: true as const, deletedDocuments } }, 200);
  });
}
