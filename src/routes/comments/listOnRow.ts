import { defineRoute, ctxOf } from "../../http/route";
import { z } from "@hono/zod-openapi";
import { type Router, errorResponses, jsonResponse, pathId } from "../../openapi";
import { listThreads } from "../../services/comments/read";
import { ThreadQuerySchema, ThreadsPageSchema } from "./schema";

const route = defineRoute({
  operationId: "listRowComments",
  auth: "batched",
  method: "get",
  path: "/table/row/{rowId}/comments",
  tags: ["Comments"],
  summary: "A row's comment threads, oldest first",
  description: "As the document listing, for a row (and its cells): read access to its table (else 404).",
  request: { params: z.object({ rowId: pathId("rowId") }), query: ThreadQuerySchema },
  responses: { 200: jsonResponse(ThreadsPageSchema), ...errorResponses() },
});

export function registerListRowComments(app: Router) {
  app.openapi(route, async (c) => {
    const { rowId } = c.req.valid("param");
    return c.json(await listThreads(ctxOf(c), { target: { rowId }, ...c.req.valid("query") }), 200);
  });
}
