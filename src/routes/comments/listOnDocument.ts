import { defineRoute, ctxOf } from "../../http/route";
import { z } from "@hono/zod-openapi";
import { type Router, errorResponses, jsonResponse, pathId } from "../../openapi";
import { listThreads } from "../../services/comments/read";
import { ThreadQuerySchema, ThreadsPageSchema } from "./schema";

const route = defineRoute({
  operationId: "listDocumentComments",
  auth: "batched",
  method: "get",
  path: "/document/{documentId}/comments",
  tags: ["Comments"],
  summary: "A document's comment threads, oldest first",
  description:
    "Root comments with their `replies`, oldest first, `limit` (1-100, default 50) a page; `status` open, resolved or all (default); `blockId` keeps the threads anchored to that block; pass `nextCursor` as `cursor` for the next page (a cursor this listing did not issue is 400). Document read access (else 404).",
  request: { params: z.object({ documentId: pathId("documentId") }), query: ThreadQuerySchema },
  responses: { 200: jsonResponse(ThreadsPageSchema), ...errorResponses() },
});

export function registerListDocumentComments(app: Router) {
  app.openapi(route, async (c) => {
    const { documentId } = c.req.valid("param");
    return c.json(await listThreads(ctxOf(c), { target: { documentId }, ...c.req.valid("query") }), 200);
  });
}
