import { defineRoute, ctxOf } from "../../http/route";
import { expectedVersionOf, withEtag } from "../../http/conditional";
import { z } from "@hono/zod-openapi";
import { errorResponses, ignored, jsonBody, jsonResponse, pathId, type Router } from "../../openapi";
import { upsertCell } from "../../services/tables/cells";
import { CellSchema } from "../../schemas/tables";

const route = defineRoute({
  operationId: "upsertCell",
  method: "put",
  path: "/table/row/{rowId}/cell/{columnId}",
  tags: ["Cells"],
  summary: "Write one cell (null clears it)",
  description:
    "Values by column type: text-like → string; number → finite number; checkbox → boolean; date → ms number; select → an item id; " +
    "multiSelect → array of item ids; url → absolute http(s) URL; email → e-mail address. A wrong value is 400; a computed cell " +
    "(oneMany, formula) is 409. The value is checked after access, since what is valid depends on the column. " +
    "Formula cells of the row are recomputed in the same request and returned beside the cell as `formulaCells` " +
    "(`{ [columnId]: value }`, null when blank). `If-Match` with the cell's ETag (from E15): a mismatch — or no cell yet — is 412 " +
    "and nothing changes. The response's ETag is the cell's.",
  auth: "batched",
  request: {
    params: z.object({ rowId: pathId("rowId"), columnId: pathId("columnId") }),
    ...jsonBody(
      z.strictObject({
        data: z
          .unknown()
          .refine((v) => v !== undefined, { message: "data is required (null clears the cell)" })
          .openapi({ description: "The typed value" }),
        ...ignored(
          "_id",
          "tableId",
          "rowId",
          "columnId",
          "workspaceId",
          "originId",
          "isIdentifier",
          "createdAt",
          "updatedAt",
          "isDeleted",
        ),
      }),
    ),
  },
  responses: {
    200: jsonResponse(
      z
        .object({
          data: CellSchema,
          formulaCells: z
            .record(z.string(), z.unknown())
            .openapi({ description: "The row's formula cells as computed in this request" }),
        })
        .openapi("UpsertedCell"),
    ),
    ...errorResponses("ConflictError", "PreconditionFailedError"),
  },
});

export function registerUpsertCell(app: Router) {
  app.openapi(route, async (c) => {
    const { rowId, columnId } = c.req.valid("param");
    const { cell, formulaCells } = await upsertCell(ctxOf(c), {
      rowId,
      columnId,
      data: c.req.valid("json").data,
      expected: expectedVersionOf(c),
    });
    await withEtag(c, { data: cell });
    return c.json({ data: cell, formulaCells }, 200);
  });
}
