import { createRoute, z } from "@hono/zod-openapi";
import { and, eq } from "drizzle-orm";
import { conflict, notFound } from "../../errors";
import { errorResponses, okData, pathId, security, type Router } from "../../openapi";
import { workspaceCollaborators } from "../../db/schema";
import { requireWorkspace } from "../../auth/access";
import { workspaceCollaboratorsOf, workspaceDto } from "../../services/workspaces/serialize";
import { WorkspaceSchema } from "../../schemas/core";

const route = createRoute({
  method: "delete",
  path: "/workspace/{id}/collaborator/{userId}",
  tags: ["Workspaces"],
  summary: "Remove a collaborator (owner or admin; anyone may remove themselves)",
  security,
  request: { params: z.object({ id: pathId("id"), userId: pathId("userId") }) },
  responses: { ...okData(WorkspaceSchema), ...errorResponses("ConflictError") },
});

export function registerRemoveWorkspaceCollaborator(app: Router) {
  app.openapi(route, async (c) => {
    const db = c.get("db");
    const { id, userId } = c.req.valid("param");
    const self = userId === c.get("user")._id;
    const { workspace } = await requireWorkspace(db, c.get("user"), id, self ? "read" : "admin");
    if (userId === workspace.ownerId) throw conflict("The workspace owner cannot be removed");
    const removed = await db
      .delete(workspaceCollaborators)
      .where(and(eq(workspaceCollaborators.workspaceId, id), eq(workspaceCollaborators.userId, userId)))
      .returning();
    if (removed.length === 0) throw notFound("Collaborator");
    const collabs = await workspaceCollaboratorsOf(db, [id]);
    return c.json({ data: workspaceDto(workspace, collabs.get(id) ?? []) }, 200);
  });
}
