import { defineRoute, ctxOf } from "../../http/route";
import { type Router, errorResponses, okData } from "../../openapi";
import { getComment } from "../../services/comments/read";
import { CommentSchema, commentIdParam } from "./schema";

const route = defineRoute({
  operationId: "getComment",
  auth: "batched",
  method: "get",
  path: "/comment/{commentId}",
  tags: ["Comments"],
  summary: "One comment",
  description: "A comment (a deleted one as its tombstone) with read access to its target, else 404.",
  request: { params: commentIdParam },
  responses: { ...okData(CommentSchema), ...errorResponses() },
});

export function registerGetComment(app: Router) {
  app.openapi(route, async (c) => {
    return c.json({ data: await getComment(ctxOf(c), c.req.valid("param")) }, 200);
  });
}
