import { z } from "@hono/zod-openapi";
import { ctxOf, defineRoute } from "../../http/route";
import { errorResponses, okData, pathId, type Router } from "../../openapi";
import { listDocuments } from "../../services/documents/read";
import { DocumentSchema } from "../../schemas/core";

const route = defineRoute({
  operationId: "listDocuments",
  // Project access, the tree, the caller's grants and the collaborators go in one batch with authentication.
  auth: "batched",
  method: "get",
  path: "/document/all/{projectId}",
  tags: ["Documents"],
  summary: "The project's document tree: readable, non-deleted documents ordered by parentId, order",
  description:
    "The documents and folders of a project the caller can read, without deleted ones, ordered by parentId and then order, so a client can build the tree in one pass.",
  request: { params: z.object({ projectId: pathId("projectId") }) },
  responses: { ...okData(z.array(DocumentSchema)), ...errorResponses() },
});

export function registerListDocuments(app: Router) {
  app.openapi(route, async (c) => c.json({ data: await listDocuments(ctxOf(c), c.req.valid("param")) }, 200));
}
