import { z } from "@hono/zod-openapi";
import { ctxOf, defineRoute } from "../../http/route";
import { errorResponses, okData, pathId, type Router } from "../../openapi";
import { removeWorkspaceCollaborator } from "../../services/workspaces/workspaces";
import { WorkspaceSchema } from "../../schemas/core";

const route = defineRoute({
  operationId: "removeWorkspaceCollaborator",
  auth: "batched",
  method: "delete",
  path: "/workspace/{id}/collaborator/{userId}",
  tags: ["Workspaces"],
  summary:
    "Remove a collaborator (owner or admin; anyone may remove themselves); their document grants in the workspace end too",
  description:
    "Owners and admins may remove any collaborator but the owner; any collaborator may remove themselves. The removed user's document grants inside the workspace end with it.",
  request: { params: z.object({ id: pathId("id"), userId: pathId("userId") }) },
  responses: { ...okData(WorkspaceSchema), ...errorResponses("ConflictError") },
});

export function registerRemoveWorkspaceCollaborator(app: Router) {
  app.openapi(route, async (c) => {
    const { id, userId } = c.req.valid("param");
    return c.json({ data: await removeWorkspaceCollaborator(ctxOf(c), { workspaceId: id, userId }) }, 200);
  });
}
