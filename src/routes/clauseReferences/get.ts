import { defineRoute } from "../../http/route";
import { z } from "@hono/zod-openapi";
import { errorResponses, okData, pathId, security, type Router } from "../../openapi";
import { requireDocument } from "../../auth/access";
import { ApiError, notFound } from "../../errors";
import { clauseReferenceDto, findClauseReference } from "../../services/references/clauseReferences";
import { ClauseReferenceSchema } from "../../schemas/tables";

const route = defineRoute({
  operationId: "getClauseReference",
  method: "get",
  path: "/clause-reference/{referenceId}",
  tags: ["References"],
  summary: "Retrieve a clause reference (read access to its document)",
  security,
  request: { params: z.object({ referenceId: pathId("referenceId") }) },
  responses: { ...okData(ClauseReferenceSchema), ...errorResponses() },
});

export function registerGetClauseReference(app: Router) {
  app.openapi(route, async (c) => {
    const db = c.get("db");
    const row = await findClauseReference(db, c.req.valid("param").referenceId);
    if (!row) throw notFound("Clause reference");
    try {
      await requireDocument(db, c.get("user"), row.documentId, "read");
    } catch (err) {
      if (err instanceof ApiError && err.code === "NotFoundError") throw notFound("Clause reference");
      throw err;
    }
    return c.json({ data: clauseReferenceDto(row) }, 200);
  });
}
