import { defineRoute } from "../../http/route";
import { z } from "@hono/zod-openapi";
import { and, eq } from "drizzle-orm";
import { notFound } from "../../errors";
import { errorResponses, okData, pathId, security, type Router } from "../../openapi";
import { projects } from "../../db/schema";
import { viaDocumentGrant, workspaceRole } from "../../auth/access";
import { projectDto } from "../../services/workspaces/serialize";
import { ProjectSchema } from "../../schemas/core";

const route = defineRoute({
  operationId: "listProjects",
  method: "get",
  path: "/project/all/{workspaceId}",
  tags: ["Projects"],
  summary: "E12. List projects in a workspace",
  description: "All projects of the workspace for its collaborators; for others, the projects in which they can read a document. A workspace the caller can see nothing of is 404.",
  security,
  request: { params: z.object({ workspaceId: pathId("workspaceId") }) },
  responses: { ...okData(z.array(ProjectSchema)), ...errorResponses() },
});

export function registerListProjects(app: Router) {
  app.openapi(route, async (c) => {
    const db = c.get("db");
    const userId = c.get("user")._id;
    const { workspaceId } = c.req.valid("param");
    const role = await workspaceRole(db, userId, workspaceId);
    const rows = await db
      .select()
      .from(projects)
      .where(
        and(
          eq(projects.workspaceId, workspaceId),
          role ? undefined : viaDocumentGrant(userId, projects.id),
        ),
      )
      .orderBy(projects.createdAt);
    if (!role && rows.length === 0) throw notFound("Workspace");
    return c.json({ data: rows.map(projectDto) }, 200);
  });
}
