import { defineRoute, ctxOf } from "../../http/route";
import { z } from "@hono/zod-openapi";
import { errorResponses, jsonBody, jsonResponse, pathId, type Router } from "../../openapi";
import { queryRows } from "../../services/tables/query/query";
import { QueriedRowsPage } from "../../schemas/tables";
import { queryFromBody, RowQueryBody } from "./querySchema";

const route = defineRoute({
  operationId: "queryRows",
  method: "post",
  path: "/table/{tableId}/query",
  tags: ["Rows"],
  summary: "Query rows: filter, sort, fields, search, expand, cellFormat (a JSON body)",
  description:
    "The members of GET /table/{tableId}/rows as a JSON body, for filters too long for a URL. Writes nothing. " +
    "A bad filter, sort, fields or expand is 422 with `details[].path` naming the member (`filter.and.1.value`).",
  auth: "batched",
  // Access and columns with authentication, then the page compiled from the columns.
  roundTrips: 2,
  request: { params: z.object({ tableId: pathId("tableId") }), ...jsonBody(RowQueryBody) },
  responses: { 200: jsonResponse(QueriedRowsPage), ...errorResponses("UnprocessableEntityError") },
});

export function registerQueryRows(app: Router) {
  app.openapi(route, async (c) => {
    const query = queryFromBody(c.req.valid("json"));
    return c.json(await queryRows(ctxOf(c), { tableId: c.req.valid("param").tableId, query }), 200);
  });
}
