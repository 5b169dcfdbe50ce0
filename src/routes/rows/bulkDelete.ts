import { defineRoute, ctxOf } from "../../http/route";
import { z } from "@hono/zod-openapi";
import { errorResponses, jsonBody, okData, pathId, type Router } from "../../openapi";
import { bulkDeleteRows } from "../../services/tables/bulk/softDelete";
import { MAX_BULK_IDS } from "../../services/tables/bulk/common";
import { IdSchema } from "../../schemas/ids";

const route = defineRoute({
  operationId: "bulkDeleteRows",
  method: "post",
  path: "/table/{tableId}/rows/delete",
  tags: ["Rows"],
  // The read (with authentication and a key's claim) and the write with its kept answer; the recomputation runs in
  // the table's coordinator, on its own connection.
  roundTrips: 2,
  summary: "Soft-delete 1–1000 rows, all or nothing",
  description:
    "Each id must be a live row of the table: otherwise 404 (`details` name the ids) and nothing is deleted; a repeated id is 400. The rows vanish from every read with their cells; lookups reading them are recomputed before the answer; each row emits row.deleted. POST …/rows/restore brings them back.",
  request: {
    params: z.object({ tableId: pathId("tableId") }),
    ...jsonBody(z.strictObject({ ids: z.array(IdSchema).min(1).max(MAX_BULK_IDS) })),
  },
  responses: {
    ...okData(z.object({ ids: z.array(z.string()) })),
    ...errorResponses("PayloadTooLargeError"),
  },
});

export function registerBulkDeleteRows(app: Router) {
  app.openapi(route, async (c) => {
    const { data } = await bulkDeleteRows(ctxOf(c), {
      tableId: c.req.valid("param").tableId,
      ids: c.req.valid("json").ids,
    });
    return c.json({ data }, 200);
  });
}
