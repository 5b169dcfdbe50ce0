import { defineRoute } from "../../http/route";
import { z } from "@hono/zod-openapi";
import { eq } from "drizzle-orm";
import { errorResponses, ignored, jsonBody, NameSchema, okData, pathId, security, type Router } from "../../openapi";
import { workspaces } from "../../db/schema";
import { requireWorkspace } from "../../auth/access";
import { now } from "../../lib/ids";
import { workspaceCollaboratorsOf, workspaceDto } from "../../services/workspaces/serialize";
import { WorkspaceSchema } from "../../schemas/core";

const route = defineRoute({
  operationId: "updateWorkspace",
  method: "patch",
  path: "/workspace/{id}",
  tags: ["Workspaces"],
  summary: "Update a workspace (owner or admin)",
  security,
  request: {
    params: z.object({ id: pathId("id") }),
    ...jsonBody(
      z.strictObject({
        name: NameSchema.optional(),
        description: z.string().max(10_000).optional(),
        isShared: z.boolean().optional(),
        ...ignored("_id", "isDefault", "organizationId", "ownerId", "collaborators", "createdAt", "updatedAt"),
      }),
    ),
  },
  responses: { ...okData(WorkspaceSchema), ...errorResponses() },
});

export function registerUpdateWorkspace(app: Router) {
  app.openapi(route, async (c) => {
    const db = c.get("db");
    const { id } = c.req.valid("param");
    const { name, description, isShared } = c.req.valid("json");
    await requireWorkspace(db, c.get("user"), id, "admin");
    const [updated] = await db
      .update(workspaces)
      .set({ ...(name !== undefined && { name }), ...(description !== undefined && { description }), ...(isShared !== undefined && { isShared }), updatedAt: now() })
      .where(eq(workspaces.id, id))
      .returning();
    const collabs = await workspaceCollaboratorsOf(db, [id]);
    return c.json({ data: workspaceDto(updated!, collabs.get(id) ?? []) }, 200);
  });
}
