import { z } from "@hono/zod-openapi";
import { ctxOf, defineRoute } from "../../http/route";
import { jsonWithEtag } from "../../http/conditional";
import { errorResponses, okData, pathId, type Router } from "../../openapi";
import { getWorkspace } from "../../services/workspaces/workspaces";
import { WorkspaceSchema } from "../../schemas/core";

const route = defineRoute({
  operationId: "getWorkspace",
  auth: "batched",
  method: "get",
  path: "/workspace/{id}",
  tags: ["Workspaces"],
  summary: "Retrieve a workspace the caller collaborates on",
  description: "Carries a strong ETag; If-None-Match answers 304.",
  request: { params: z.object({ id: pathId("id") }) },
  responses: {
    ...okData(WorkspaceSchema),
    ...errorResponses(),
    304: { description: "Not modified (If-None-Match matched the ETag)" },
  },
});

export function registerGetWorkspace(app: Router) {
  app.openapi(route, async (c) =>
    jsonWithEtag(c, { data: await getWorkspace(ctxOf(c), { workspaceId: c.req.valid("param").id }) }),
  );
}
