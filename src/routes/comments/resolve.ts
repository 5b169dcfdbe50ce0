import { defineRoute, ctxOf } from "../../http/route";
import { type Router, errorResponses, okData } from "../../openapi";
import { setThreadStatus } from "../../services/comments/write";
import { CommentSchema, commentIdParam } from "./schema";

const route = defineRoute({
  operationId: "resolveComment",
  method: "post",
  path: "/comment/{commentId}/resolve",
  tags: ["Comments"],
  summary: "Resolve the comment's thread",
  description:
    "Marks the thread of the comment resolved (`resolvedBy`, `resolvedAt`) and answers its root comment. Commenters and above.",
  request: { params: commentIdParam },
  responses: { ...okData(CommentSchema), ...errorResponses() },
});

export function registerResolveComment(app: Router) {
  app.openapi(route, async (c) => {
    const { commentId } = c.req.valid("param");
    return c.json({ data: await setThreadStatus(ctxOf(c), { commentId, status: "resolved" }) }, 200);
  });
}
