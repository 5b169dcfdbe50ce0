import { defineRoute, ctxOf } from "../../http/route";
import { z } from "@hono/zod-openapi";
import { type Router, errorResponses, jsonResponse, pathId } from "../../openapi";
import { documentHistory } from "../../services/changes/feed";
import { HistoryPageSchema, HistoryQuerySchema } from "./schema";

const route = defineRoute({
  operationId: "getDocumentHistory",
  auth: "batched",
  method: "get",
  path: "/document/{documentId}/history",
  tags: ["Changes"],
  summary: "A document's change history, newest first",
  description:
    "The document's entries of the change log (created, metadata updated and moved with before and after, deleted, restored, and each content version with its version number and size), newest first, with actor and source. A deleted document's history stays readable to those who can read it; no access is 404.",
  request: { params: z.object({ documentId: pathId("documentId") }), query: HistoryQuerySchema },
  responses: { 200: jsonResponse(HistoryPageSchema), ...errorResponses() },
});

export function registerGetDocumentHistory(app: Router) {
  app.openapi(route, async (c) => {
    const { documentId } = c.req.valid("param");
    return c.json(await documentHistory(ctxOf(c), { documentId, ...c.req.valid("query") }), 200);
  });
}
