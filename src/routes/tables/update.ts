import { defineRoute, ctxOf } from "../../http/route";
import { z } from "@hono/zod-openapi";
import { expectedVersionOf, withEtag } from "../../http/conditional";
import { errorResponses, ignored, jsonBody, NameSchema, okData, pathId, type Router } from "../../openapi";
import { updateTable } from "../../services/tables/tables";
import { TableSchema } from "../../schemas/tables";

const route = defineRoute({
  operationId: "updateTable",
  auth: "batched",
  method: "patch",
  path: "/table/{tableId}",
  tags: ["Tables"],
  summary: "Rename a table",
  description:
    "Table references show the new name at once (names are resolved at read time). `If-Match` with the table's ETag (from its GET): " +
    "a mismatch is 412 and nothing changes. The response carries the new ETag.",
  request: {
    params: z.object({ tableId: pathId("tableId") }),
    ...jsonBody(
      z.strictObject({
        name: NameSchema,
        ...ignored(
          "_id",
          "projectId",
          "workspaceId",
          "documentId",
          "userId",
          "createdAt",
          "updatedAt",
          "isDeleted",
          "columns",
        ),
      }),
    ),
  },
  responses: { ...okData(TableSchema), ...errorResponses("PreconditionFailedError") },
});

export function registerUpdateTable(app: Router) {
  app.openapi(route, async (c) => {
    const table = await updateTable(ctxOf(c), {
      tableId: c.req.valid("param").tableId,
      name: c.req.valid("json").name,
      expected: expectedVersionOf(c),
    });
    const body = { data: table };
    await withEtag(c, body);
    return c.json(body, 200);
  });
}
