import { defineRoute, ctxOf } from "../../http/route";
import { type Router, errorResponses, okData } from "../../openapi";
import { setReaction } from "../../services/comments/write";
import { CommentSchema, EmojiParamSchema, commentIdParam } from "./schema";

const route = defineRoute({
  operationId: "deleteCommentReaction",
  method: "delete",
  path: "/comment/{commentId}/reaction/{emoji}",
  tags: ["Comments"],
  summary: "Take back a reaction",
  description:
    "Removes the caller's reaction `{emoji}` (absent: nothing changes). Commenters and above; a deleted comment is 409. Answers the comment.",
  request: { params: commentIdParam.extend({ emoji: EmojiParamSchema }) },
  responses: { ...okData(CommentSchema), ...errorResponses("ConflictError") },
});

export function registerDeleteCommentReaction(app: Router) {
  app.openapi(route, async (c) => {
    const { commentId, emoji } = c.req.valid("param");
    return c.json({ data: await setReaction(ctxOf(c), { commentId, emoji, on: false }) }, 200);
  });
}
