import { defineRoute, ctxOf } from "../../http/route";
import { z } from "@hono/zod-openapi";
import { type Router, errorResponses, jsonBody, okData, pathId } from "../../openapi";
import { createThread } from "../../services/comments/write";
import { DocumentCommentInput, WrittenCommentSchema } from "./schema";

const route = defineRoute({
  operationId: "createDocumentComment",
  method: "post",
  path: "/document/{documentId}/comment",
  tags: ["Comments"],
  summary: "Start a comment thread on a document (optionally anchored to a block)",
  description:
    "A new thread on a document the caller may comment on (commenter, editor or owner; viewers get 403, others 404). `anchor` ties it to a block id and a character range in it; the thread follows the block through edits and is marked `detached` when the block is deleted. Mentions `@[userId]` of users who can read the document notify them; the others are listed in `unnotified`.",
  request: { params: z.object({ documentId: pathId("documentId") }), ...jsonBody(DocumentCommentInput) },
  responses: { ...okData(WrittenCommentSchema), ...errorResponses() },
});

export function registerCreateDocumentComment(app: Router) {
  app.openapi(route, async (c) => {
    const { documentId } = c.req.valid("param");
    const { body, anchor } = c.req.valid("json");
    return c.json({ data: await createThread(ctxOf(c), { target: { documentId, anchor }, body }) }, 200);
  });
}
