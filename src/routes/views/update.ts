import { defineRoute, ctxOf } from "../../http/route";
import { z } from "@hono/zod-openapi";
import { expectedVersionOf, withEtag } from "../../http/conditional";
import { errorResponses, jsonBody, okData, pathId, type Router } from "../../openapi";
import { updateView } from "../../services/views/views";
import { viewMembers, ViewSchema, ViewUpdateInput } from "./schema";

const route = defineRoute({
  operationId: "updateView",
  auth: "batched",
  method: "patch",
  path: "/table/view/{viewId}",
  tags: ["Views"],
  summary: "Change a view's name, filter, sort, fields or hidden columns",
  description:
    "Changes only the members given. Needs write access to the table. `If-Match` with the view's ETag: a mismatch is 412 and nothing changes.",
  request: { params: z.object({ viewId: pathId("viewId") }), ...jsonBody(ViewUpdateInput) },
  responses: {
    ...okData(ViewSchema),
    ...errorResponses("PreconditionFailedError", "UnprocessableEntityError"),
  },
});

export function registerUpdateView(app: Router) {
  app.openapi(route, async (c) => {
    const view = await updateView(ctxOf(c), {
      viewId: c.req.valid("param").viewId,
      changes: viewMembers(c.req.valid("json")),
      expected: expectedVersionOf(c),
    });
    const body = { data: view };
    await withEtag(c, body);
    return c.json(body, 200);
  });
}
