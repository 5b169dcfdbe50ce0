import { defineRoute } from "../../http/route";
import { z } from "@hono/zod-openapi";
import { and, eq } from "drizzle-orm";
import { onlyErrorResponses, okData, security, type Router } from "../../openapi";
import { organizationMembers, workspaceCollaborators, workspaces } from "../../db/schema";
import { workspaceCollaboratorsOf, workspaceDto } from "../../services/workspaces/serialize";
import { WorkspaceSchema } from "../../schemas/core";

// E17 has no error body but 401: any orgId, even a malformed one, answers a (possibly empty) list.
const route = defineRoute({
  operationId: "listWorkspaces",
  method: "get",
  path: "/workspace/all/{orgId}",
  tags: ["Workspaces"],
  summary: "E17. List workspaces in an organization",
  description: "The workspaces of the organization that the caller collaborates on; `[]` for an organization the caller is not in.",
  security,
  request: { params: z.object({ orgId: z.string().openapi({ param: { name: "orgId", in: "path" } }) }) },
  responses: { ...okData(z.array(WorkspaceSchema)), ...onlyErrorResponses("UnauthorizedError", "RateLimitedError", "InternalError") },
});

export function registerListWorkspaces(app: Router) {
  app.openapi(route, async (c) => {
    const db = c.get("db");
    const userId = c.get("user")._id;
    const rows = await db
      .select({ ws: workspaces })
      .from(workspaces)
      .innerJoin(workspaceCollaborators, and(eq(workspaceCollaborators.workspaceId, workspaces.id), eq(workspaceCollaborators.userId, userId)))
      .innerJoin(organizationMembers, and(eq(organizationMembers.organizationId, workspaces.organizationId), eq(organizationMembers.userId, userId)))
      .where(eq(workspaces.organizationId, c.req.valid("param").orgId))
      .orderBy(workspaces.createdAt);
    const collabs = await workspaceCollaboratorsOf(db, rows.map((r) => r.ws.id));
    return c.json({ data: rows.map((r) => workspaceDto(r.ws, collabs.get(r.ws.id) ?? [])) }, 200);
  });
}
