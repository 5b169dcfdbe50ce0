import { defineRoute, ctxOf } from "../../http/route";
import { z } from "@hono/zod-openapi";
import { errorResponses, jsonResponse, pathId, type Router } from "../../openapi";
import { viewRows } from "../../services/views/views";
import { QueriedRowsPage } from "../../schemas/tables";
import { queryFromParams, RowQueryParams } from "../rows/querySchema";

const route = defineRoute({
  operationId: "listViewRows",
  auth: "batched",
  method: "get",
  path: "/table/view/{viewId}/rows",
  tags: ["Views"],
  summary: "The rows of a view: its query, with the caller's filter combined by and",
  description:
    "Relative dates are evaluated now. Conditions on columns deleted since the view was saved are dropped and listed in `warnings`.",
  // The view, its table's access and columns with authentication; then the page compiled from them.
  roundTrips: 2,
  request: {
    params: z.object({ viewId: pathId("viewId") }),
    query: RowQueryParams.pick({ filter: true, limit: true, cursor: true }),
  },
  responses: { 200: jsonResponse(QueriedRowsPage), ...errorResponses("UnprocessableEntityError") },
});

export function registerListViewRows(app: Router) {
  app.openapi(route, async (c) => {
    const q = queryFromParams(c.req.valid("query"));
    const answer = await viewRows(ctxOf(c), {
      viewId: c.req.valid("param").viewId,
      filter: q.filter,
      limit: q.limit,
      cursor: q.cursor,
    });
    return c.json(answer, 200);
  });
}
