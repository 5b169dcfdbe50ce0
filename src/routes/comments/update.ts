import { defineRoute, ctxOf } from "../../http/route";
import { type Router, errorResponses, jsonBody, okData } from "../../openapi";
import { updateComment } from "../../services/comments/write";
import { BodyInput, commentIdParam, WrittenCommentSchema } from "./schema";

const route = defineRoute({
  operationId: "updateComment",
  method: "patch",
  path: "/comment/{commentId}",
  tags: ["Comments"],
  summary: "Edit a comment's body (its author)",
  description:
    "The author edits the body; `editedAt` is set. Others who can read it get 403; a deleted comment is 409. New mentions notify as on create.",
  request: { params: commentIdParam, ...jsonBody(BodyInput) },
  responses: { ...okData(WrittenCommentSchema), ...errorResponses("ConflictError") },
});

export function registerUpdateComment(app: Router) {
  app.openapi(route, async (c) => {
    const { commentId } = c.req.valid("param");
    return c.json({ data: await updateComment(ctxOf(c), { commentId, body: c.req.valid("json").body }) }, 200);
  });
}
