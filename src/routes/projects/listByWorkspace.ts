import { createRoute, z } from "@hono/zod-openapi";
import { and, eq, sql } from "drizzle-orm";
import { notFound } from "../../errors";
import { errorResponses, okData, pathId, security, type Router } from "../../openapi";
import { projects } from "../../db/schema";
import { workspaceRole } from "../../auth/access";
import { projectDto } from "../../services/workspaces/serialize";
import { ProjectSchema } from "../../schemas/core";

const route = createRoute({
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
          role
            ? undefined
            : sql`EXISTS (SELECT 1 FROM document_collaborators dc JOIN documents d ON d.id = dc.document_id
                WHERE dc.user_id = ${userId} AND d.project_id = ${projects.id} AND d.is_deleted = 0)`,
        ),
      )
      .orderBy(projects.createdAt);
    if (!role && rows.length === 0) throw notFound("Workspace");
    return c.json({ data: rows.map(projectDto) }, 200);
  });
}
