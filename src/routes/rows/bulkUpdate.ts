import { defineRoute, ctxOf } from "../../http/route";
import { z } from "@hono/zod-openapi";
import { errorResponses, jsonBody, jsonResponse, pathId, type Router } from "../../openapi";
import { updateRows } from "../../services/tables/bulk/update";
import { MAX_BULK_ROWS } from "../../services/tables/rows";
import { IdSchema } from "../../schemas/ids";
import { RowWithCellValuesSchema } from "../../schemas/tables";
import { CellsInput } from "./schema";

const RowUpdateInput = z
  .strictObject({
    _id: IdSchema,
    cells: CellsInput,
    ifMatch: z.string().min(1).max(200).optional().openapi({
      description:
        "The row's ETag (GET /table/row/{rowId}): when the row has changed since, the call is 412 and nothing is written.",
    }),
  })
  .openapi("RowUpdate");

const route = defineRoute({
  operationId: "bulkUpdateRows",
  method: "patch",
  keyed: true,
  auth: "batched",
  path: "/table/{tableId}/rows",
  tags: ["Rows"],
  // The read (with authentication and a key's claim) and the write with its kept answer; the recomputation runs in
  // the table's coordinator, on its own connection.
  roundTrips: 2,
  summary: "Change cells of 1–1000 rows, all or nothing",
  description:
    "Each row names its `_id` and the cells to change (null clears a cell; select values by item id or label; others stay). " +
    "A row that is not a live row of the table is 404 (`details` name them), a repeated row 400, a computed column 409, " +
    "a row whose `ifMatch` is not its current ETag 412, a bad value 400 with paths `rows.<i>.cells.<columnId>`: in every case nothing is written. " +
    "All values commit in one D1 batch; formula and lookup cells are recomputed once for the call; each row emits row.updated. " +
    "The answer lists the rows in request order with the cells written and the row's formula cells as computed.",
  request: {
    params: z.object({ tableId: pathId("tableId") }),
    ...jsonBody(z.strictObject({ rows: z.array(RowUpdateInput).min(1).max(MAX_BULK_ROWS) })),
  },
  responses: {
    200: jsonResponse(z.object({ data: z.array(RowWithCellValuesSchema) }).openapi("UpdatedRows")),
    ...errorResponses("ConflictError", "PreconditionFailedError", "PayloadTooLargeError"),
  },
});

export function registerBulkUpdateRows(app: Router) {
  app.openapi(route, async (c) => {
    const { rows } = await updateRows(ctxOf(c), {
      tableId: c.req.valid("param").tableId,
      rows: c.req.valid("json").rows,
    });
    return c.json({ data: rows }, 200);
  });
}
