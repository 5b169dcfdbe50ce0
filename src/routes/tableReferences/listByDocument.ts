import { defineRoute, ctxOf } from "../../http/route";
import { z } from "@hono/zod-openapi";
import { errorResponses, okData, pathId, type Router } from "../../openapi";
import { listTableReferences } from "../../services/references/tableReferences";
import { TableReferenceSchema } from "../../schemas/tables";

const route = defineRoute({
  operationId: "listTableReferences",
  auth: "batched",
  method: "get",
  path: "/document/{documentId}/table-references",
  tags: ["References"],
  summary: "A document's table references, oldest first",
  description: "Needs read access to the document. References to tables the caller cannot read are left out.",
  request: { params: z.object({ documentId: pathId("documentId") }) },
  responses: { ...okData(z.array(TableReferenceSchema)), ...errorResponses() },
});

export function registerListTableReferences(app: Router) {
  app.openapi(route, async (c) => c.json({ data: await listTableReferences(ctxOf(c), c.req.valid("param")) }, 200));
}
