import { defineRoute } from "../../http/route";
import { z } from "@hono/zod-openapi";
import { errorResponses, ignored, jsonBody, NameSchema, okData, pathId, security, type Router } from "../../openapi";
import { requireTable } from "../../auth/access";
import { renameTable } from "../../services/tables/tables";
import { tableDto } from "../../services/tables/serialize";
import { TableSchema } from "../../schemas/tables";

const route = defineRoute({
  operationId: "updateTable",
  method: "patch",
  path: "/table/{tableId}",
  tags: ["Tables"],
  summary: "Rename a table",
  description: "Table references show the new name at once (names are resolved at read time).",
  security,
  request: {
    params: z.object({ tableId: pathId("tableId") }),
    ...jsonBody(
      z.strictObject({
        name: NameSchema,
        ...ignored("_id", "projectId", "workspaceId", "documentId", "userId", "createdAt", "updatedAt", "isDeleted", "columns"),
      }),
    ),
  },
  responses: { ...okData(TableSchema), ...errorResponses() },
});

export function registerUpdateTable(app: Router) {
  app.openapi(route, async (c) => {
    const db = c.get("db");
    const { table } = await requireTable(db, c.get("user"), c.req.valid("param").tableId, "write");
    const updated = await renameTable(db, table, c.req.valid("json").name);
    return c.json({ data: tableDto(updated) }, 200);
  });
}
