import { z } from "@hono/zod-openapi";
import { ctxOf, defineRoute } from "../../http/route";
import { jsonWithEtag } from "../../http/conditional";
import { errorResponses, okData, pathId, type Router } from "../../openapi";
import { getProject } from "../../services/projects/projects";
import { ProjectSchema } from "../../schemas/core";

const route = defineRoute({
  operationId: "getProject",
  auth: "batched",
  method: "get",
  path: "/project/{id}",
  tags: ["Projects"],
  summary: "Retrieve a project",
  description: "Carries a strong ETag; If-None-Match answers 304.",
  request: { params: z.object({ id: pathId("id") }) },
  responses: {
    ...okData(ProjectSchema),
    ...errorResponses(),
    304: { description: "Not modified (If-None-Match matched the ETag)" },
  },
});

export function registerGetProject(app: Router) {
  app.openapi(route, async (c) =>
    jsonWithEtag(c, { data: await getProject(ctxOf(c), { projectId: c.req.valid("param").id }) }),
  );
}
