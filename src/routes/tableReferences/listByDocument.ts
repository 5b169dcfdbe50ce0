import { defineRoute } from "../../http/route";
import { z } from "@hono/zod-openapi";
import { errorResponses, okData, pathId, security, type Router } from "../../openapi";
import { requireDocument } from "../../auth/access";
import { tableReferenceDto, tableReferencesOfDocument } from "../../services/references/tableReferences";
import { TableReferenceSchema } from "../../schemas/tables";

const route = defineRoute({
  operationId: "listTableReferences",
  method: "get",
  path: "/document/{documentId}/table-references",
  tags: ["References"],
  summary: "A document's table references, oldest first",
  description: "Needs read access to the document. References to tables the caller cannot read are left out.",
  security,
  request: { params: z.object({ documentId: pathId("documentId") }) },
  responses: { ...okData(z.array(TableReferenceSchema)), ...errorResponses() },
});

export function registerListTableReferences(app: Router) {
  app.openapi(route, async (c) => {
    const db = c.get("db");
    const user = c.get("user");
    const { documentId } = c.req.valid("param");
    await requireDocument(db, user, documentId, "read");
    const found = await tableReferencesOfDocument(db, user, documentId);
    return c.json({ data: found.map(tableReferenceDto) }, 200);
  });
}
