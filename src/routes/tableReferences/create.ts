import { defineRoute, ctxOf } from "../../http/route";
import { z } from "@hono/zod-openapi";
import { errorResponses, IdSchemaBody, ignored, jsonBody, okData, type Router } from "../../openapi";
import { createTableReference } from "../../services/references/tableReferences";
import { TableReferenceSchema } from "../../schemas/tables";

const route = defineRoute({
  operationId: "createTableReference",
  method: "post",
  path: "/table/reference",
  shard: { body: "documentId" },
  tags: ["References"],
  summary: "Create a table reference",
  description:
    "Needs edit access to the document and read access to the table. `columnId` (and `oneToManyColumnId`) must be live columns of the " +
    "table and `relatedRowId` a live row of it (400). `_id` is optional; one already in use is 409. `workspaceId` is the document's; " +
    "`columnName`/`tableName` are resolved at read time.",
  request: jsonBody(
    z.strictObject({
      _id: IdSchemaBody.optional(),
      documentId: IdSchemaBody,
      tableId: IdSchemaBody,
      columnId: IdSchemaBody,
      relatedRowId: IdSchemaBody.nullable(),
      rowId: IdSchemaBody.nullable().optional(),
      oneToManyColumnId: IdSchemaBody.nullable().optional(),
      oneToManyInstanceIds: z.array(IdSchemaBody).max(1000).optional(),
      type: z.enum(["relation", "reference", "global"]),
      ...ignored("originId", "workspaceId", "columnName", "tableName", "createdAt", "updatedAt"),
    }),
  ),
  responses: { ...okData(TableReferenceSchema), ...errorResponses("ConflictError") },
});

export function registerCreateTableReference(app: Router) {
  app.openapi(route, async (c) => {
    return c.json({ data: await createTableReference(ctxOf(c), c.req.valid("json")) }, 200);
  });
}
