import { defineRoute, ctxOf } from "../../http/route";
import { z } from "@hono/zod-openapi";
import { type Router, errorResponses, jsonBody, okData, pathId } from "../../openapi";
import { createThread } from "../../services/comments/write";
import { RowCommentInput, WrittenCommentSchema } from "./schema";

const route = defineRoute({
  operationId: "createRowComment",
  method: "post",
  path: "/table/row/{rowId}/comment",
  tags: ["Comments"],
  summary: "Start a comment thread on a row (optionally one of its cells)",
  description:
    "A new thread on a row; `columnId` names a cell (a column of the row's table, else 404). Needs a workspace role of commenter or above (viewers 403; no access 404). Mentions as on documents.",
  request: { params: z.object({ rowId: pathId("rowId") }), ...jsonBody(RowCommentInput) },
  responses: { ...okData(WrittenCommentSchema), ...errorResponses() },
});

export function registerCreateRowComment(app: Router) {
  app.openapi(route, async (c) => {
    const { rowId } = c.req.valid("param");
    const { body, columnId } = c.req.valid("json");
    return c.json({ data: await createThread(ctxOf(c), { target: { rowId, columnId }, body }) }, 200);
  });
}
