import { defineRoute, ctxOf } from "../../http/route";
import { z } from "@hono/zod-openapi";
import { errorResponses, jsonResponse, pathId, type Router } from "../../openapi";
import { listViews } from "../../services/views/views";
import { ViewSchema } from "./schema";

const route = defineRoute({
  operationId: "listViews",
  auth: "batched",
  method: "get",
  path: "/table/{tableId}/views",
  tags: ["Views"],
  summary: "The table's views, oldest first",
  description: "Needs read access to the table (404 alike for missing, deleted and unreadable tables).",
  request: { params: z.object({ tableId: pathId("tableId") }) },
  responses: { 200: jsonResponse(z.object({ data: z.array(ViewSchema) })), ...errorResponses() },
});

export function registerListViews(app: Router) {
  app.openapi(route, async (c) =>
    c.json({ data: await listViews(ctxOf(c), { tableId: c.req.valid("param").tableId }) }, 200),
  );
}
