import { defineRoute } from "../../http/route";
import { z } from "@hono/zod-openapi";
import { errorResponses, okData, pathId, security, type Router } from "../../openapi";
import { requireDocument } from "../../auth/access";
import { ApiError, notFound } from "../../errors";
import { findClauseReference, softDeleteClauseReference } from "../../services/references/clauseReferences";
import { SuccessSchema } from "../../schemas/tables";

const route = defineRoute({
  operationId: "deleteClauseReference",
  method: "delete",
  path: "/clause-reference/{referenceId}",
  tags: ["References"],
  summary: "Soft-delete a clause reference (edit access to its document)",
  security,
  request: { params: z.object({ referenceId: pathId("referenceId") }) },
  responses: { ...okData(SuccessSchema), ...errorResponses() },
});

export function registerDeleteClauseReference(app: Router) {
  app.openapi(route, async (c) => {
    const db = c.get("db");
    const row = await findClauseReference(db, c.req.valid("param").referenceId);
    if (!row) throw notFound("Clause reference");
    try {
      await requireDocument(db, c.get("user"), row.documentId, "edit");
    } catch (err) {
      if (err instanceof ApiError && err.code === "NotFoundError") throw notFound("Clause reference");
      throw err;
    }
    await softDeleteClauseReference(db, row.id);
    return c.json({ data: { success: true as const } }, 200);
  });
}
