import { defineRoute } from "../../http/route";
import { z } from "@hono/zod-openapi";
import { and, eq, sql } from "drizzle-orm";
import { conflict, notFound } from "../../errors";
import { errorResponses, okData, pathId, security, type Router } from "../../openapi";
import { documentCollaborators, workspaceCollaborators } from "../../db/schema";
import { requireWorkspace } from "../../auth/access";
import { workspaceCollaboratorsOf, workspaceDto } from "../../services/workspaces/serialize";
import { WorkspaceSchema } from "../../schemas/core";

const route = defineRoute({
  operationId: "removeWorkspaceCollaborator",
  method: "delete",
  path: "/workspace/{id}/collaborator/{userId}",
  tags: ["Workspaces"],
  summary: "Remove a collaborator (owner or admin; anyone may remove themselves); their document grants in the workspace end too",
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
    // Leaving a workspace also ends the document grants held in it (every document a member created carries
    // an owner grant, which would otherwise keep the documents and, through them, the project readable).
    // The grants go first: the EXISTS keeps a document-only guest's grants when the user is no collaborator.
    const [, removed] = await db.batch([
      db
        .delete(documentCollaborators)
        .where(
          and(
            eq(documentCollaborators.userId, userId),
            sql`${documentCollaborators.documentId} IN (SELECT id FROM documents WHERE workspace_id = ${id})`,
            sql`EXISTS (SELECT 1 FROM workspace_collaborators WHERE workspace_id = ${id} AND user_id = ${userId})`,
          ),
        ),
      db
        .delete(workspaceCollaborators)
        .where(and(eq(workspaceCollaborators.workspaceId, id), eq(workspaceCollaborators.userId, userId)))
        .returning(),
    ]);
    if (removed.length === 0) throw notFound("Collaborator");
    const collabs = await workspaceCollaboratorsOf(db, [id]);
    return c.json({ data: workspaceDto(workspace, collabs.get(id) ?? []) }, 200);
  });
}
