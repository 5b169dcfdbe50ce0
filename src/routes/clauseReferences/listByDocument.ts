import { defineRoute } from "../../http/route";
import { z } from "@hono/zod-openapi";
import { errorResponses, okData, pathId, security, type Router } from "../../openapi";
import { requireDocument } from "../../auth/access";
import { clauseReferenceDto, clauseReferencesOfDocument } from "../../services/references/clauseReferences";
import { ClauseReferenceSchema } from "../../schemas/tables";

const route = defineRoute({
  operationId: "listClauseReferences",
  method: "get",
  path: "/document/{documentId}/clause-references",
  tags: ["References"],
  summary: "A document's clause references, oldest first",
  security,
  request: { params: z.object({ documentId: pathId("documentId") }) },
  responses: { ...okData(z.array(ClauseReferenceSchema)), ...errorResponses() },
});

export function registerListClauseReferences(app: Router) {
  app.openapi(route, async (c) => {
    const db = c.get("db");
    const { documentId } = c.req.valid("param");
    await requireDocument(db, c.get("user"), documentId, "read");
    const rows = await clauseReferencesOfDocument(db, documentId);
    return c.json({ data: rows.map(clauseReferenceDto) }, 200);
  });
}
