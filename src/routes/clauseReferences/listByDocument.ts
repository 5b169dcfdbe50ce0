import { defineRoute, ctxOf } from "../../http/route";
import { z } from "@hono/zod-openapi";
import { errorResponses, okData, pathId, type Router } from "../../openapi";
import { listClauseReferences } from "../../services/references/clauseReferences";
import { ClauseReferenceSchema } from "../../schemas/tables";

const route = defineRoute({
  operationId: "listClauseReferences",
  auth: "batched",
  method: "get",
  path: "/document/{documentId}/clause-references",
  tags: ["References"],
  summary: "A document's clause references, oldest first",
  description: "The live clause references of a document the caller can read, oldest first.",
  request: { params: z.object({ documentId: pathId("documentId") }) },
  responses: { ...okData(z.array(ClauseReferenceSchema)), ...errorResponses() },
});

export function registerListClauseReferences(app: Router) {
  app.openapi(route, async (c) => c.json({ data: await listClauseReferences(ctxOf(c), c.req.valid("param")) }, 200));
}
