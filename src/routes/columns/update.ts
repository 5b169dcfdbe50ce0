import { defineRoute } from "../../http/route";
import { z } from "@hono/zod-openapi";
import { errorResponses, ignored, jsonBody, NameSchema, okData, pathId, security, type Router } from "../../openapi";
import { requireTable } from "../../auth/access";
import { findLiveColumn, updateColumn } from "../../services/tables/columns";
import { columnDto } from "../../services/tables/serialize";
import { ColumnDataInput, ColumnSchema } from "../../schemas/tables";

const route = defineRoute({
  operationId: "updateColumn",
  method: "patch",
  path: "/table/column/{columnId}",
  tags: ["Columns"],
  summary: "Update a column: name (slug re-derived), description, data",
  description:
    "`data` replaces the type and options whole. Changing the type is allowed, except to or from `identifier` (409); " +
    "existing cells keep their stored values and reads return them as stored. Leaving type `formula` drops the persisted formula.",
  security,
  request: {
    params: z.object({ columnId: pathId("columnId") }),
    ...jsonBody(
      z.strictObject({
        name: NameSchema.optional(),
        description: z.string().max(10_000).optional(),
        data: ColumnDataInput.optional(),
        ...ignored("_id", "projectId", "tableId", "workspaceId", "slug", "originId", "isIdentifier", "formula", "createdAt", "updatedAt", "isDeleted"),
      }),
    ),
  },
  responses: { ...okData(ColumnSchema), ...errorResponses("ConflictError") },
});

export function registerUpdateColumn(app: Router) {
  app.openapi(route, async (c) => {
    const db = c.get("db");
    const body = c.req.valid("json");
    const column = await findLiveColumn(db, c.req.valid("param").columnId);
    const { table } = await requireTable(db, c.get("user"), column.tableId, "write", { as: "Column" });
    const updated = await updateColumn(db, table, column, { name: body.name, description: body.description, data: body.data });
    return c.json({ data: columnDto(updated) }, 200);
  });
}
