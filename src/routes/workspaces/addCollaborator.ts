import { z } from "@hono/zod-openapi";
import { ctxOf, defineRoute } from "../../http/route";
import { EmailSchema, errorResponses, jsonBody, okData, pathId, type Router } from "../../openapi";
import { addWorkspaceCollaborator } from "../../services/workspaces/workspaces";
import { WorkspaceSchema } from "../../schemas/core";

const route = defineRoute({
  operationId: "addWorkspaceCollaborator",
  // POST: eager authentication, so an Idempotency-Key is claimed in the token's batch (src/http/route.ts).
  method: "post",
  path: "/workspace/{id}/collaborator",
  tags: ["Workspaces"],
  summary: "Add a collaborator by email, or change their role (owner or admin)",
  description: "The user also becomes a member of the workspace's organization, so E17 lists the workspace for them.",
  request: {
    params: z.object({ id: pathId("id") }),
    ...jsonBody(z.strictObject({ email: EmailSchema, role: z.enum(["admin", "editor", "viewer"]) })),
  },
  responses: { ...okData(WorkspaceSchema), ...errorResponses("ConflictError") },
});

export function registerAddWorkspaceCollaborator(app: Router) {
  app.openapi(route, async (c) => c.json({ data: await addWorkspaceCollaborator(ctxOf(c), { workspaceId: c.req.valid("param").id, ...c.req.valid("json") }) }, 200));
}
