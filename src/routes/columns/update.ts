import { defineRoute, ctxOf } from "../../http/route";
import { expectedVersionOf, withEtag } from "../../http/conditional";
import { z } from "@hono/zod-openapi";
import { errorResponses, ignored, jsonBody, NameSchema, okData, pathId, type Router } from "../../openapi";
import { updateColumn } from "../../services/tables/columns";
import { ColumnDataInput, ColumnSchema } from "../../schemas/tables";

const route = defineRoute({
  operationId: "updateColumn",
  method: "patch",
  path: "/table/column/{columnId}",
  tags: ["Columns"],
  summary: "Update a column: name (slug re-derived), description, data",
  description:
    "`data` replaces the type and options whole. Changing the type is allowed, except to or from `identifier` (409); " +
    "existing cells keep their stored values and reads return them as stored. Leaving type `formula` drops the persisted formula. " +
    '`data: { type: "formula", formula: { text } }` sets a formula as typed (or `formula: { expression }`, the compiled tree), checked and ' +
    "computed for every row as on create (422 with line and column). " +
    "`If-Match` takes the ETag of E11 (the table's column list) or of this column (from its POST/PATCH response): a mismatch is 412 and nothing changes.",
  auth: "batched",
  request: {
    params: z.object({ columnId: pathId("columnId") }),
    ...jsonBody(
      z.strictObject({
        name: NameSchema.optional(),
        description: z.string().max(10_000).optional(),
        data: ColumnDataInput.optional(),
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
  // 422: a formula that does not compile, nests too deep, or takes too long to compute for the whole table.
  responses: {
    ...okData(ColumnSchema),
    ...errorResponses("ConflictError", "PreconditionFailedError", "UnprocessableEntityError"),
  },
});

export function registerUpdateColumn(app: Router) {
  app.openapi(route, async (c) => {
    const { name, description, data } = c.req.valid("json");
    const column = await updateColumn(ctxOf(c), {
      columnId: c.req.valid("param").columnId,
      patch: { name, description, data },
      expected: expectedVersionOf(c),
    });
    const body = { data: column };
    await withEtag(c, body);
    return c.json(body, 200);
  });
}
