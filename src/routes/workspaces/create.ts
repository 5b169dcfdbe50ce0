import { defineRoute } from "../../http/route";
import { z } from "@hono/zod-openapi";
import { notFound } from "../../errors";
import { errorResponses, ignored, IdSchemaBody, jsonBody, NameSchema, okData, security, type Router } from "../../openapi";
import { workspaceCollaborators, workspaces } from "../../db/schema";
import { newId, now } from "../../lib/ids";
import { organizationRole } from "../../auth/access";
import { workspaceDto } from "../../services/workspaces/serialize";
import { WorkspaceSchema } from "../../schemas/core";

const route = defineRoute({
  operationId: "createWorkspace",
  method: "post",
  path: "/workspace",
  tags: ["Workspaces"],
  summary: "Create a workspace in an organization the caller belongs to (the caller becomes owner)",
  security,
  request: jsonBody(
    z.strictObject({
      organizationId: IdSchemaBody,
      name: NameSchema,
      description: z.string().max(10_000).optional(),
      isShared: z.boolean().optional(),
      ...ignored("_id", "isDefault", "ownerId", "collaborators", "createdAt", "updatedAt"),
    }),
  ),
  responses: { ...okData(WorkspaceSchema), ...errorResponses() },
});

export function registerCreateWorkspace(app: Router) {
  app.openapi(route, async (c) => {
    const db = c.get("db");
    const user = c.get("user");
    const body = c.req.valid("json");
    if (!(await organizationRole(db, user._id, body.organizationId))) throw notFound("Organization");
    const t = now();
    const ws = {
      id: newId(),
      organizationId: body.organizationId,
      name: body.name,
      description: body.description ?? "",
      isDefault: false,
      isShared: body.isShared ?? false,
      ownerId: user._id,
      createdAt: t,
      updatedAt: t,
    };
    await db.batch([
      db.insert(workspaces).values(ws),
      db.insert(workspaceCollaborators).values({ workspaceId: ws.id, userId: user._id, role: "owner", createdAt: t }),
    ]);
    return c.json({ data: workspaceDto(ws, [{ userId: user._id, role: "owner" }]) }, 200);
  });
}
