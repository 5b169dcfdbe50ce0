import { defineRoute, ctxOf } from "../../http/route";
import { z } from "@hono/zod-openapi";
import { expectedVersionOf } from "../../http/conditional";
import { errorResponses, jsonBody, okData, pathId, type Router } from "../../openapi";
import { patchRow } from "../../services/tables/bulk/update";
import { RowWithCellValuesSchema } from "../../schemas/tables";
import { CellsInput } from "./schema";

const route = defineRoute({
  operationId: "patchRow",
  method: "patch",
  keyed: true,
  auth: "batched",
  path: "/table/row/{rowId}",
  tags: ["Rows"],
  // The read (with authentication and a key's claim) and the write with its kept answer; the recomputation runs in
  // the table's coordinator, on its own connection.
  roundTrips: 2,
  summary: "Change several cells of one row",
  description:
    "The cells named change (null clears one; select values by item id or label); the others stay. A computed column is 409, " +
    "a bad value 400 (paths `cells.<columnId>`), `If-Match` with the row's ETag (E16) 412 when it has changed: nothing is written. " +
    "The row's formula cells are recomputed in the same request and come back with the written cells.",
  request: {
    params: z.object({ rowId: pathId("rowId") }),
    ...jsonBody(z.strictObject({ cells: CellsInput })),
  },
  responses: {
    ...okData(RowWithCellValuesSchema),
    ...errorResponses("ConflictError", "PreconditionFailedError"),
  },
});

export function registerPatchRow(app: Router) {
  app.openapi(route, async (c) => {
    const { row } = await patchRow(ctxOf(c), {
      rowId: c.req.valid("param").rowId,
      cells: c.req.valid("json").cells,
      expected: expectedVersionOf(c),
    });
    return c.json({ data: row }, 200);
  });
}
