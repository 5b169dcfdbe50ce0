import { z } from "@hono/zod-openapi";
import { ctxOf, defineRoute } from "../../http/route";
import { errorResponses, okData, pathId, type Router } from "../../openapi";
import { canReadDocument } from "../../services/documents/read";

const route = defineRoute({
  operationId: "checkDocumentAccess",
  auth: "batched",
  method: "get",
  path: "/access/document/{documentId}",
  tags: ["Documents"],
  summary: "E20. Check document access",
  description: "`true` when the caller can read the document; `false` otherwise, whether or not it exists.",
  request: { params: z.object({ documentId: pathId("documentId") }) },
  responses: { ...okData(z.boolean()), ...errorResponses() },
});

export function registerCheckDocumentAccess(app: Router) {
  app.openapi(route, async (c) => c.json({ data: await canReadDocument(ctxOf(c), c.req.valid("param")) }, 200));
}
