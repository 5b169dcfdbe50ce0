import { defineRoute } from "../../http/route";
import { z } from "@hono/zod-openapi";
import { errorResponses, ignored, jsonBody, NameSchema, okData, pathId, security, type Router } from "../../openapi";
import { requireTable } from "../../auth/access";
import { createColumn } from "../../services/tables/columns";
import { columnDto } from "../../services/tables/serialize";
import { ColumnDataInput, ColumnSchema } from "../../schemas/tables";

const route = defineRoute({
  operationId: "createColumn",
  method: "post",
  path: "/table/{tableId}/column",
  tags: ["Columns"],
  summary: "Add a column",
  description:
    "`data.type` is one of identifier, text, number, checkbox, date, select, multiSelect, url, email, oneMany, formula. " +
    "`slug` is derived from the name (`-2`, `-3`, … on a clash within the table). A second `identifier` column is 409. " +
    "oneMany references that do not resolve (target table of another project, unknown columns) are 400 with details.",
  security,
  request: {
    params: z.object({ tableId: pathId("tableId") }),
    ...jsonBody(
      z.strictObject({
        name: NameSchema,
        description: z.string().max(10_000).optional(),
        data: ColumnDataInput,
        ...ignored("_id", "projectId", "tableId", "workspaceId", "slug", "originId", "isIdentifier", "formula", "createdAt", "updatedAt", "isDeleted"),
      }),
    ),
  },
  responses: { ...okData(ColumnSchema), ...errorResponses("ConflictError") },
});

export function registerCreateColumn(app: Router) {
  app.openapi(route, async (c) => {
    const db = c.get("db");
    const body = c.req.valid("json");
    const { table } = await requireTable(db, c.get("user"), c.req.valid("param").tableId, "write");
    const column = await createColumn(db, table, { name: body.name, description: body.description, data: body.data });
    return c.json({ data: columnDto(column) }, 200);
  });
}
