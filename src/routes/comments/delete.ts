import { defineRoute, ctxOf } from "../../http/route";
import { type Router, errorResponses, okData } from "../../openapi";
import { deleteComment } from "../../services/comments/write";
import { CommentSchema, commentIdParam } from "./schema";

const route = defineRoute({
  operationId: "deleteComment",
  method: "delete",
  path: "/comment/{commentId}",
  tags: ["Comments"],
  summary: "Delete a comment, leaving a tombstone (its author or a project admin)",
  description:
    'The comment stays in its thread as a tombstone: `isDeleted: true`, `body: ""`, no reactions or mentions. Its author or a project admin (workspace owner or admin); other readers 403. Deleting a tombstone again answers it.',
  request: { params: commentIdParam },
  responses: { ...okData(CommentSchema), ...errorResponses() },
});

export function registerDeleteComment(app: Router) {
  app.openapi(route, async (c) => {
    return c.json({ data: await deleteComment(ctxOf(c), c.req.valid("param")) }, 200);
  });
}
