import { defineRoute, ctxOf } from "../../http/route";
import { z } from "@hono/zod-openapi";
import { type Router, errorResponses, jsonResponse, pathId } from "../../openapi";
import { rowHistory } from "../../services/changes/feed";
import { HistoryPageSchema, HistoryQuerySchema } from "./schema";

const route = defineRoute({
  operationId: "getRowHistory",
  auth: "batched",
  method: "get",
  path: "/table/row/{rowId}/history",
  tags: ["Changes"],
  summary: "A row's change history, newest first",
  description:
    "The row's entries of the change log (created, updated with before and after, deleted, restored), newest first. A deleted row's history stays readable to those who can read its table; no access is 404.",
  request: { params: z.object({ rowId: pathId("rowId") }), query: HistoryQuerySchema },
  responses: { 200: jsonResponse(HistoryPageSchema), ...errorResponses() },
});

export function registerGetRowHistory(app: Router) {
  app.openapi(route, async (c) => {
    const { rowId } = c.req.valid("param");
    return c.json(await rowHistory(ctxOf(c), { rowId, ...c.req.valid("query") }), 200);
  });
}
