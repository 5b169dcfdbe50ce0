import { defineRoute } from "../../http/route";
import { z } from "@hono/zod-openapi";
import { errorResponses, okData, pathId, security, type Router } from "../../openapi";
import { requireDocument } from "../../auth/access";
import { ApiError, notFound } from "../../errors";
import { findTableReference, softDeleteTableReference } from "../../services/references/tableReferences";
import { SuccessSchema } from "../../schemas/tables";

const route = defineRoute({
  operationId: "deleteTableReference",
  method: "delete",
  path: "/table/reference/{referenceId}",
  tags: ["References"],
  summary: "Delete a table reference (edit access to its document)",
  security,
  request: { params: z.object({ referenceId: pathId("referenceId") }) },
  responses: { ...okData(SuccessSchema), ...errorResponses() },
});

export function registerDeleteTableReference(app: Router) {
  app.openapi(route, async (c) => {
    const db = c.get("db");
    const found = await findTableReference(db, c.req.valid("param").referenceId);
    if (!found) throw notFound("Table reference");
    try {
      await requireDocument(db, c.get("user"), found.ref.documentId, "edit");
    } catch (err) {
      if (err instanceof ApiError && err.code === "NotFoundError") throw notFound("Table reference");
      throw err;
    }
    await softDeleteTableReference(db, found.ref.id);
    return c.json({ data: { success: true as const } }, 200);
  });
}
