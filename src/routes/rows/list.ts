import { defineRoute, ctxOf } from "../../http/route";
import { z } from "@hono/zod-openapi";
import { errorResponses, jsonResponse, pathId, type Router } from "../../openapi";
import { DEFAULT_PAGE_SIZE, listRowsOfTable, MAX_PAGE_SIZE } from "../../services/tables/rowReads";
import { RowWithCellValuesSchema } from "../../schemas/tables";

const route = defineRoute({
  operationId: "listRows",
  method: "get",
  path: "/table/{tableId}/rows",
  tags: ["Rows"],
  summary: "List rows with their cell values, a page at a time",
  description:
    "Rows in creation (commit) order with `cells: { [columnId]: value }` for every live column (null when empty; oneMany computed). " +
    "Pass the previous page's `nextCursor` as `cursor` for the next page; rows added meanwhile are neither skipped nor repeated. " +
    "`nextCursor` is null on the last page. A cursor this listing did not issue is 400.",
  auth: "batched",
  // A list: access, columns and the page ride in the authentication batch; oneMany targets (when the table has
  // oneMany columns) need the columns first, so a second round trip.
  roundTrips: 2,
  request: {
    params: z.object({ tableId: pathId("tableId") }),
    query: z.object({
      limit: z.coerce
        .number()
        .int()
        .min(1)
        .max(MAX_PAGE_SIZE)
        .default(DEFAULT_PAGE_SIZE)
        .openapi({ param: { name: "limit", in: "query" }, example: 100 }),
      cursor: z
        .string()
        .min(1)
        .max(200)
        .optional()
        .openapi({ param: { name: "cursor", in: "query" } }),
    }),
  },
  responses: {
    200: jsonResponse(
      z.object({ data: z.array(RowWithCellValuesSchema), nextCursor: z.string().nullable() }).openapi("RowsPage"),
    ),
    ...errorResponses(),
  },
});

export function registerListRows(app: Router) {
  app.openapi(route, async (c) => {
    const { limit, cursor } = c.req.valid("query");
    return c.json(await listRowsOfTable(ctxOf(c), { tableId: c.req.valid("param").tableId, limit, cursor }), 200);
  });
}
