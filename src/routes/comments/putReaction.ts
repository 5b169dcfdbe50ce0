import { defineRoute, ctxOf } from "../../http/route";
import { type Router, errorResponses, okData } from "../../openapi";
import { setReaction } from "../../services/comments/write";
import { CommentSchema, EmojiParamSchema, commentIdParam } from "./schema";

const route = defineRoute({
  operationId: "putCommentReaction",
  method: "put",
  path: "/comment/{commentId}/reaction/{emoji}",
  tags: ["Comments"],
  summary: "React to a comment with an emoji",
  description:
    "Adds the caller's reaction `{emoji}` (one percent-encoded emoji, at most 32 bytes; anything else is 400); again changes nothing. Commenters and above; a deleted comment is 409. Answers the comment.",
  request: { params: commentIdParam.extend({ emoji: EmojiParamSchema }) },
  responses: { ...okData(CommentSchema), ...errorResponses("ConflictError") },
});

export function registerPutCommentReaction(app: Router) {
  app.openapi(route, async (c) => {
    const { commentId, emoji } = c.req.valid("param");
    return c.json({ data: await setReaction(ctxOf(c), { commentId, emoji, on: true }) }, 200);
  });
}
