import { z } from "@hono/zod-openapi";
import { defineRoute, ctxOf } from "../../http/route";
import { jsonWithEtag } from "../../http/conditional";
import { errorResponses, okData, pathId, type Router } from "../../openapi";
import { getDocument } from "../../services/documents/read";
import { DocumentNotFoundSchema, DocumentSchema } from "../../schemas/core";

const route = defineRoute({
  operationId: "getDocument",
  auth: "batched",
  method: "get",
  path: "/document/{documentId}",
  tags: ["Documents"],
  summary: "E10. Retrieve a document",
  description:
    "Top-level metadata only. Missing, soft-deleted and unreadable documents all answer 404 with `{ data: { _id, isNotFound: true } }`. " +
    "Carries a strong ETag; If-None-Match answers 304.",
  request: { params: z.object({ documentId: pathId("documentId") }) },
  responses: {
    ...okData(DocumentSchema),
    ...errorResponses(),
    304: { description: "Not modified (If-None-Match matched the ETag)" },
    404: {
      description: "Missing, soft-deleted or unreadable",
      content: { "application/json": { schema: DocumentNotFoundSchema } },
    },
  },
});

export function registerGetDocument(app: Router) {
  app.openapi(route, async (c) => {
    const { documentId } = c.req.valid("param");
    const doc = await getDocument(ctxOf(c), { documentId });
    if (!doc) return c.json({ data: { _id: documentId, isNotFound: true as const } }, 404);
    return jsonWithEtag(c, { data: doc });
  });
}
