import { z } from "@hono/zod-openapi";
import { ctxOf, defineRoute } from "../../http/route";
import { errorResponses, okData, pathId, type Router } from "../../openapi";
import { listProjects } from "../../services/projects/projects";
import { ProjectSchema } from "../../schemas/core";

const route = defineRoute({
  operationId: "listProjects",
  // The caller's role and the visible projects go in one batch with authentication.
  auth: "batched",
  method: "get",
  path: "/project/all/{workspaceId}",
  tags: ["Projects"],
  summary: "E12. List projects in a workspace",
  description:
    "All projects of the workspace for its collaborators; for others, the projects in which they can read a document. A workspace the caller can see nothing of is 404.",
  request: { params: z.object({ workspaceId: pathId("workspaceId") }) },
  responses: { ...okData(z.array(ProjectSchema)), ...errorResponses() },
});

export function registerListProjects(app: Router) {
  app.openapi(route, async (c) => c.json({ data: await listProjects(ctxOf(c), c.req.valid("param")) }, 200));
}
