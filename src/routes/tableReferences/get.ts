import { defineRoute } from "../../http/route";
import { z } from "@hono/zod-openapi";
import { errorResponses, okData, pathId, security, type Router } from "../../openapi";
import { requireDocument } from "../../auth/access";
import { ApiError, notFound } from "../../errors";
import { findTableReference, requireReferencedTableReadable, tableReferenceDto } from "../../services/references/tableReferences";
import { TableReferenceSchema } from "../../schemas/tables";

const route = defineRoute({
  operationId: "getTableReference",
  method: "get",
  path: "/table/reference/{referenceId}",
  tags: ["References"],
  summary: "E1. Retrieve a table reference",
  description:
    "Needs read permission on the reference's document (else 404, as for a missing or deleted reference). " +
    "403 when the caller can read the document but not the referenced table's project. `columnName`/`tableName` are the current names.",
  security,
  request: { params: z.object({ referenceId: pathId("referenceId") }) },
  responses: { ...okData(TableReferenceSchema), ...errorResponses() },
});

export function registerGetTableReference(app: Router) {
  app.openapi(route, async (c) => {
    const db = c.get("db");
    const user = c.get("user");
    const found = await findTableReference(db, c.req.valid("param").referenceId);
    if (!found) throw notFound("Table reference");
    try {
      await requireDocument(db, user, found.ref.documentId, "read");
    } catch (err) {
      if (err instanceof ApiError && err.code === "NotFoundError") throw notFound("Table reference");
      throw err;
    }
    await requireReferencedTableReadable(db, user, found);
    return c.json({ data: tableReferenceDto(found) }, 200);
  });
}
