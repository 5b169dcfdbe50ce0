import { z } from "@hono/zod-openapi";
import { ctxOf, defineRoute } from "../../http/route";
import { errorResponses, okData, pathId, type Router } from "../../openapi";
import { restoreDocument } from "../../services/documents/update";
import { DocumentSchema } from "../../schemas/core";

const route = defineRoute({
  operationId: "restoreDocument",
  // POST: eager authentication, so an Idempotency-Key is claimed in the token's batch (src/http/route.ts).
  method: "post",
  path: "/document/{documentId}/restore",
  tags: ["Documents"],
  summary: "Restore a soft-deleted document with the subtree deleted along with it",
  description: "A document whose parent folder is still deleted answers 409: restore the folder first.",
  request: { params: z.object({ documentId: pathId("documentId") }) },
  responses: {
    ...okData(DocumentSchema.extend({ restoredDocuments: z.number() })),
    ...errorResponses("ConflictError"),
  },
});

export function registerRestoreDocument(app: Router) {
  app.openapi(route, async (c) => c.json({ data: await restoreDocument(ctxOf(c), c.req.valid("param")) }, 200));
}
