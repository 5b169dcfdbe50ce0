import { z } from "@hono/zod-openapi";
import { ctxOf, defineRoute } from "../../http/route";
import { errorResponses, ignored, IdSchemaBody, jsonBody, NameSchema, okData, type Router } from "../../openapi";
import { createWorkspace } from "../../services/workspaces/workspaces";
import { WorkspaceSchema } from "../../schemas/core";

const route = defineRoute({
  operationId: "createWorkspace",
  // POST: eager authentication, so an Idempotency-Key is claimed in the token's batch (src/http/route.ts).
  method: "post",
  path: "/workspace",
  shard: { body: "organizationId" },
  tags: ["Workspaces"],
  summary: "Create a workspace in an organization the caller belongs to (the caller becomes owner)",
  description:
    "Creates a workspace in the given organization; the caller must be a member of it (404 otherwise) and becomes the workspace's owner.",
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
  app.openapi(route, async (c) => c.json({ data: await createWorkspace(ctxOf(c), c.req.valid("json")) }, 200));
}
