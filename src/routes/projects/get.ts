import { defineRoute } from "../../http/route";
import { z } from "@hono/zod-openapi";
import { errorResponses, okData, pathId, security, type Router } from "../../openapi";
import { requireProject } from "../../auth/access";
import { projectDto } from "../../services/workspaces/serialize";
import { ProjectSchema } from "../../schemas/core";

const route = defineRoute({
  operationId: "getProject",
  method: "get",
  path: "/project/{id}",
  tags: ["Projects"],
  summary: "Retrieve a project",
  security,
  request: { params: z.object({ id: pathId("id") }) },
  responses: { ...okData(ProjectSchema), ...errorResponses() },
});

export function registerGetProject(app: Router) {
  app.openapi(route, async (c) => {
    const { project } = await requireProject(c.get("db"), c.get("user"), c.req.valid("param").id, "read");
    return c.json({ data: projectDto(project) }, 200);
  });
}
