import { defineRoute, ctxOf } from "../../http/route";
import { z } from "@hono/zod-openapi";
import { jsonWithEtag } from "../../http/conditional";
import { errorResponses, okData, pathId, type Router } from "../../openapi";
import { getView } from "../../services/views/views";
import { ViewSchema } from "./schema";

const route = defineRoute({
  operationId: "getView",
  auth: "batched",
  method: "get",
  path: "/table/view/{viewId}",
  tags: ["Views"],
  summary: "Retrieve a view",
  description:
    "Carries a strong ETag; If-None-Match answers 304. `warnings` lists members on columns deleted since the view was saved.",
  request: { params: z.object({ viewId: pathId("viewId") }) },
  responses: {
    ...okData(ViewSchema),
    ...errorResponses(),
    304: { description: "Not modified (If-None-Match matched the ETag)" },
  },
});

export function registerGetView(app: Router) {
  app.openapi(route, async (c) =>
    jsonWithEtag(c, { data: await getView(ctxOf(c), { viewId: c.req.valid("param").viewId }) }),
  );
}
