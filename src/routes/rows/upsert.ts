import { defineRoute, ctxOf } from "../../http/route";
import { z } from "@hono/zod-openapi";
import { errorResponses, jsonBody, okData, pathId, type Router } from "../../openapi";
import { upsertRows } from "../../services/tables/bulk/upsert";
import { MAX_BULK_ROWS } from "../../services/tables/rows";
import { IdSchema } from "../../schemas/ids";
import { RowWithCellValuesSchema } from "../../schemas/tables";
import { CellsInput } from "./schema";

const route = defineRoute({
  operationId: "upsertRows",
  method: "post",
  path: "/table/{tableId}/rows/upsert",
  tags: ["Rows"],
  // The read (with authentication, a key's claim and the rows holding the keys) and the write with its kept answer.
  roundTrips: 2,
  summary: "Create or update 1–1000 rows matched on key columns, all or nothing",
  description:
    "A row whose cells in `keyColumnIds` equal those of one live row updates that row (the cells given change, others stay); " +
    "otherwise a row is created. Every row gives each key column a value, and no two rows the same key (400); a key column is a writable column other than multiSelect. " +
    "A key that matches several rows is 409 with those row ids in `details`. Nothing is written on any error. " +
    "Select values by item id or label. `created` and `updated` list row ids, `rows` every row in request order.",
  request: {
    params: z.object({ tableId: pathId("tableId") }),
    ...jsonBody(
      z.strictObject({
        keyColumnIds: z.array(IdSchema).min(1).max(5),
        rows: z
          .array(z.strictObject({ cells: CellsInput }))
          .min(1)
          .max(MAX_BULK_ROWS),
      }),
    ),
  },
  responses: {
    ...okData(
      z
        .object({
          created: z.array(z.string()),
          updated: z.array(z.string()),
          rows: z.array(RowWithCellValuesSchema),
        })
        .openapi("UpsertResult"),
    ),
    ...errorResponses("ConflictError", "PayloadTooLargeError"),
  },
});

export function registerUpsertRows(app: Router) {
  app.openapi(route, async (c) => {
    const body = c.req.valid("json");
    const { data } = await upsertRows(ctxOf(c), {
      tableId: c.req.valid("param").tableId,
      keyColumnIds: body.keyColumnIds,
      rows: body.rows,
    });
    return c.json({ data }, 200);
  });
}
