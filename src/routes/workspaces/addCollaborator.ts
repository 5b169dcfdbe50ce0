import { defineRoute } from "../../http/route";
import { z } from "@hono/zod-openapi";
import { conflict, notFound } from "../../errors";
import { EmailSchema, errorResponses, jsonBody, okData, pathId, security, type Router } from "../../openapi";
import { organizationMembers, workspaceCollaborators } from "../../db/schema";
import { requireWorkspace } from "../../auth/access";
import { now } from "../../lib/ids";
import { findUserByEmail } from "../../services/identity/users";
import { workspaceCollaboratorsOf, workspaceDto } from "../../services/workspaces/serialize";
import { WorkspaceSchema } from "../../schemas/core";

const route = defineRoute({
  operationId: "addWorkspaceCollaborator",
  method: "post",
  path: "/workspace/{id}/collaborator",
  tags: ["Workspaces"],
  summary: "Add a collaborator by email, or change their role (owner or admin)",
  description: "The user also becomes a member of the workspace's organization, so E17 lists the workspace for them.",
  security,
  request: {
    params: z.object({ id: pathId("id") }),
    ...jsonBody(z.strictObject({ email: EmailSchema, role: z.enum(["admin", "editor", "viewer"]) })),
  },
  responses: { ...okData(WorkspaceSchema), ...errorResponses("ConflictError") },
});

export function registerAddWorkspaceCollaborator(app: Router) {
  app.openapi(route, async (c) => {
    const db = c.get("db");
    const { id } = c.req.valid("param");
    const { email, role } = c.req.valid("json");
    const { workspace } = await requireWorkspace(db, c.get("user"), id, "admin");
    const target = await findUserByEmail(db, email);
    if (!target) throw notFound("User with this email");
    if (target.id === workspace.ownerId) throw conflict("The workspace owner's role cannot be changed");
    const t = now();
    await db.batch([
      db
        .insert(workspaceCollaborators)
        .values({ workspaceId: id, userId: target.id, role, createdAt: t })
        .onConflictDoUpdate({ target: [workspaceCollaborators.workspaceId, workspaceCollaborators.userId], set: { role } }),
      db.insert(organizationMembers).values({ organizationId: workspace.organizationId, userId: target.id, role: "member", createdAt: t }).onConflictDoNothing(),
    ]);
    const collabs = await workspaceCollaboratorsOf(db, [id]);
    return c.json({ data: workspaceDto(workspace, collabs.get(id) ?? []) }, 200);
  });
}
