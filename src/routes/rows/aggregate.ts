import { defineRoute, ctxOf } from "../../http/route";
import { z } from "@hono/zod-openapi";
import { errorResponses, jsonResponse, pathId, type Router } from "../../openapi";
import { validation } from "../../errors";
import { aggregateRows } from "../../services/tables/query/aggregate";

const route = defineRoute({
  operationId: "aggregateRows",
  method: "get",
  path: "/table/{tableId}/aggregate",
  tags: ["Rows"],
  summary: "Grouped totals of the rows a filter selects, computed in SQL",
  description:
    "`metrics`: `count`, `sum:{columnId}`, `avg:…`, `min:…`, `max:…`, `countEmpty:…`, comma-separated; `groupBy`: up to 3 column ids, " +
    "comma-separated (a select's group value is its item id); `filter` as GET /table/{tableId}/rows. Without `groupBy`, one entry. " +
    "At most 1,000 groups, empty groups last.",
  auth: "batched",
  // Access and columns with authentication, then the statement compiled from the columns.
  roundTrips: 2,
  request: {
    params: z.object({ tableId: pathId("tableId") }),
    query: z.object({
      metrics: z
        .string()
        .min(1)
        .max(3_000)
        .openapi({ param: { name: "metrics", in: "query" }, example: "count" }),
      groupBy: z
        .string()
        .max(300)
        .optional()
        .openapi({ param: { name: "groupBy", in: "query" } }),
      filter: z
        .string()
        .min(1)
        .max(100_000)
        .optional()
        .openapi({ param: { name: "filter", in: "query" } }),
    }),
  },
  responses: {
    200: jsonResponse(
      z
        .object({
          data: z.array(
            z.object({ group: z.record(z.string(), z.unknown()), metrics: z.record(z.string(), z.unknown()) }),
          ),
        })
        .openapi("AggregateAnswer"),
    ),
    ...errorResponses("UnprocessableEntityError"),
  },
});

export function registerAggregateRows(app: Router) {
  app.openapi(route, async (c) => {
    const q = c.req.valid("query");
    let filter: unknown;
    try {
      filter = q.filter === undefined ? undefined : (JSON.parse(q.filter) as unknown);
    } catch {
      throw validation("filter is not JSON", [{ path: "filter", message: "not valid JSON" }]);
    }
    const data = await aggregateRows(ctxOf(c), {
      tableId: c.req.valid("param").tableId,
      filter,
      groupBy: q.groupBy?.split(",").filter((g) => g.length > 0),
      metrics: q.metrics,
    });
    return c.json({ data }, 200);
  });
}
