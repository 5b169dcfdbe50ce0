import { defineRoute, ctxOf } from "../../http/route";
import { withEtag } from "../../http/conditional";
import { z } from "@hono/zod-openapi";
import { errorResponses, ignored, jsonBody, NameSchema, okData, pathId, type Router } from "../../openapi";
import { createColumn } from "../../services/tables/columns";
import { ColumnDataInput, ColumnSchema } from "../../schemas/tables";

const route = defineRoute({
  operationId: "createColumn",
  method: "post",
  path: "/table/{tableId}/column",
  tags: ["Columns"],
  summary: "Add a column",
  description:
    "`data.type` is one of identifier, text, number, checkbox, date, select, multiSelect, url, email, oneMany, formula. " +
    'A formula column takes its formula as typed, `data: { type: "formula", formula: { text: "{Price} * {Qty}" } }` (or the compiled ' +
    "`formula: { expression }`); it is checked against the table (422 with the line and column of each problem in `details`) and computed " +
    "for every row before the answer, which carries `formula: { text, expression, description, resultType }`. " +
    "`slug` is derived from the name (`-2`, `-3`, … on a clash within the table). A second `identifier` column is 409. " +
    "oneMany references that do not resolve (target table of another project, unknown columns) are 400 with details. " +
    "The response's ETag is the column's, for If-Match on its PATCH/DELETE.",
  request: {
    params: z.object({ tableId: pathId("tableId") }),
    ...jsonBody(
      z.strictObject({
        name: NameSchema,
        description: z.string().max(10_000).optional(),
        data: ColumnDataInput,
        ...ignored(
          "_id",
          "projectId",
          "tableId",
          "workspaceId",
          "slug",
          "originId",
          "isIdentifier",
          "formula",
          "createdAt",
          "updatedAt",
          "isDeleted",
        ),
      }),
    ),
  },
  responses: { ...okData(ColumnSchema), ...errorResponses("ConflictError") },
});

export function registerCreateColumn(app: Router) {
  app.openapi(route, async (c) => {
    const { name, description, data } = c.req.valid("json");
    const body = {
      data: await createColumn(ctxOf(c), { tableId: c.req.valid("param").tableId, name, description, data }),
    };
    await withEtag(c, body);
    return c.json(body, 200);
  });
}
