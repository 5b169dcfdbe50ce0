import { defineRoute, ctxOf } from "../../http/route";
import { type Router, errorResponses, jsonBody, okData } from "../../openapi";
import { replyToComment } from "../../services/comments/write";
import { BodyInput, commentIdParam, WrittenCommentSchema } from "./schema";

const route = defineRoute({
  operationId: "replyToComment",
  method: "post",
  path: "/comment/{commentId}/reply",
  tags: ["Comments"],
  summary: "Reply in a comment's thread",
  description:
    "A reply to the comment (its `parentId`), in the comment's thread; commenters and above. Mentions as on threads.",
  request: { params: commentIdParam, ...jsonBody(BodyInput) },
  responses: { ...okData(WrittenCommentSchema), ...errorResponses() },
});

export function registerReplyToComment(app: Router) {
  app.openapi(route, async (c) => {
    const { commentId } = c.req.valid("param");
    return c.json({ data: await replyToComment(ctxOf(c), { commentId, body: c.req.valid("json").body }) }, 200);
  });
}
