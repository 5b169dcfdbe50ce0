import { defineRoute } from "../../http/route";
import { z } from "@hono/zod-openapi";
import { errorResponses, IdSchemaBody, ignored, jsonBody, NameSchema, security, jsonResponse, type Router } from "../../openapi";
import { requireDocument, requireProject } from "../../auth/access";
import { validation } from "../../errors";
import { createTable } from "../../services/tables/tables";
import { columnDto, tableDto } from "../../services/tables/serialize";
import { ColumnSchema, TableSchema } from "../../schemas/tables";

const route = defineRoute({
  operationId: "createTable",
  method: "post",
  path: "/table",
  tags: ["Tables"],
  summary: "Create a table (with its identifier column `Name`)",
  description:
    "Needs workspace owner/admin/editor on the project. `documentId`, when given, must be a readable document of the same project. " +
    "The response carries the table and its identifier column.",
  security,
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
    const db = c.get("db");
    const user = c.get("user");
    const body = c.req.valid("json");
    const { project } = await requireProject(db, user, body.projectId, "write");
    if (body.documentId) {
      const { doc } = await requireDocument(db, user, body.documentId, "read");
      if (doc.projectId !== project.id) throw validation("The document must belong to the table's project", [{ path: "documentId", message: "not in this project" }]);
    }
    const { table, identifier } = await createTable(db, user._id, project, { name: body.name, documentId: body.documentId });
    return c.json({ data: { ...tableDto(table), columns: [columnDto(identifier)] } }, 200);
  });
}
