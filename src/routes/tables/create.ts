import { defineRoute, ctxOf } from "../../http/route";
import { z } from "@hono/zod-openapi";
import { errorResponses, IdSchemaBody, ignored, jsonBody, NameSchema, jsonResponse, type Router } from "../../openapi";
import { createTable } from "../../services/tables/tables";
import { ColumnSchema, TableSchema } from "../../schemas/tables";

const route = defineRoute({
  operationId: "createTable",
  method: "post",
  path: "/table",
  shard: { body: "projectId" },
  tags: ["Tables"],
  summary: "Create a table (with its identifier column `Name`)",
  description:
    "Needs workspace owner/admin/editor on the project. `documentId`, when given, must be a readable document of the same project. " +
    "The response carries the table and its identifier column.",
  request: jsonBody(
    z.strictObject({
      projectId: IdSchemaBody,
      name: NameSchema,
      documentId: IdSchemaBody.nullable().optional(),
      ...ignored("_id", "workspaceId", "userId", "createdAt", "updatedAt", "isDeleted", "columns"),
    }),
  ),
  responses: {
    200: jsonResponse(z.object({ data: TableSchema.extend({ columns: z.array(ColumnSchema) }) })),
    ...errorResponses(),
  },
});

export function registerCreateTable(app: Router) {
  app.openapi(route, async (c) => {
    const { projectId, name, documentId } = c.req.valid("json");
    return c.json({ data: await createTable(ctxOf(c), { projectId, name, documentId }) }, 200);
  });
}
