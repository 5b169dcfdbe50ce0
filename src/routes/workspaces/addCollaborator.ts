import { z } from "@hono/zod-openapi";
import { ctxOf, defineRoute } from "../../http/route";
import { EmailSchema, errorResponses, IdSchemaBody, jsonBody, okData, pathId, type Router } from "../../openapi";
import { addWorkspaceCollaborator } from "../../services/workspaces/workspaces";

// The same answer whether the email has an account or becomes a pending invitation (no user id, no member list).
const CollaboratorInvitationSchema = z
  .object({
    workspaceId: IdSchemaBody,
    email: z.email().max(320),
    role: z.enum(["admin", "editor", "commenter", "viewer"]),
  })
  .openapi("WorkspaceCollaboratorAdded");

const route = defineRoute({
  operationId: "addWorkspaceCollaborator",
  // POST: eager authentication, so an Idempotency-Key is claimed in the token's batch (src/http/route.ts).
  method: "post",
  path: "/workspace/{id}/collaborator",
  tags: ["Workspaces"],
  summary: "Add a collaborator by email, or change their role (owner or admin)",
  description:
    "A registered user becomes a collaborator at once and a member of the workspace's organization, so E17 lists the workspace for them; an unregistered email gets a pending invitation, applied when it registers. The answer is the same either way. An organization holds at most 200 pending invitations (409 past that).",
  request: {
    params: z.object({ id: pathId("id") }),
    ...jsonBody(z.strictObject({ email: EmailSchema, role: z.enum(["admin", "editor", "commenter", "viewer"]) })),
  },
  responses: { ...okData(CollaboratorInvitationSchema), ...errorResponses("ConflictError") },
});

export function registerAddWorkspaceCollaborator(app: Router) {
  app.openapi(route, async (c) =>
    c.json(
      {
        data: await addWorkspaceCollaborator(ctxOf(c), {
          workspaceId: c.req.valid("param").id,
          ...c.req.valid("json"),
        }),
      },
      200,
    ),
  );
}
