import { defineRoute, ctxOf } from "../../http/route";
import { z } from "@hono/zod-openapi";
import { errorResponses, jsonResponse, pathId, type Router } from "../../openapi";
import { listRowsOfTable } from "../../services/tables/rowReads";
import { isPlainListing, queryRows } from "../../services/tables/query/query";
import { QueriedRowsPage } from "../../schemas/tables";
import { queryFromParams, RowQueryParams } from "./querySchema";

const route = defineRoute({
  operationId: "listRows",
  method: "get",
  path: "/table/{tableId}/rows",
  tags: ["Rows"],
  summary: "List or query rows with their cell values, a page at a time",
  description:
    "Rows in creation (commit) order with `cells: { [columnId]: value }` for every live column (null when empty; oneMany computed). " +
    "Pass the previous page's `nextCursor` as `cursor` for the next page; rows added meanwhile are neither skipped nor repeated. " +
    "`nextCursor` is null on the last page. A cursor this listing did not issue is 400. " +
    "`filter`, `sort`, `fields`, `search`, `expand` and `cellFormat` query the rows (docs/api-guide.md › Querying rows); " +
    "POST /table/{tableId}/query takes the same members as a JSON body.",
  auth: "batched",
  // A list: access, columns and the page ride in the authentication batch; oneMany targets (when the table has
  // oneMany columns) need the columns first, so a second round trip. A query compiles its page from the columns:
  // the page is the second round trip.
  roundTrips: 2,
  request: { params: z.object({ tableId: pathId("tableId") }), query: RowQueryParams },
  responses: { 200: jsonResponse(QueriedRowsPage), ...errorResponses("UnprocessableEntityError") },
});

export function registerListRows(app: Router) {
  app.openapi(route, async (c) => {
    const query = queryFromParams(c.req.valid("query"));
    const tableId = c.req.valid("param").tableId;
    if (isPlainListing(query))
      return c.json(await listRowsOfTable(ctxOf(c), { tableId, limit: query.limit, cursor: query.cursor }), 200);
    return c.json(await queryRows(ctxOf(c), { tableId, query }), 200);
  });
}
