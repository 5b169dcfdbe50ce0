import { z } from "@hono/zod-openapi";
import { ctxOf, defineRoute } from "../../http/route";
import { expectedVersionOf, withEtag } from "../../http/conditional";
import { errorResponses, ignored, jsonBody, NameSchema, okData, pathId, type Router } from "../../openapi";
import { updateWorkspace } from "../../services/workspaces/workspaces";
import { WorkspaceSchema } from "../../schemas/core";

const route = defineRoute({
  operationId: "updateWorkspace",
  auth: "batched",
  method: "patch",
  path: "/workspace/{id}",
  tags: ["Workspaces"],
  summary: "Update a workspace (owner or admin)",
  description:
    "`If-Match` with the workspace's ETag makes the update conditional: 412 and nothing changed when it no longer matches. The response carries the new ETag.",
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
  responses: { ...okData(WorkspaceSchema), ...errorResponses("PreconditionFailedError") },
});

export function registerUpdateWorkspace(app: Router) {
  app.openapi(route, async (c) => {
    const body = {
      data: await updateWorkspace(ctxOf(c), {
        workspaceId: c.req.valid("param").id,
        patch: c.req.valid("json"),
        expected: expectedVersionOf(c),
      }),
    };
    await withEtag(c, body);
    return c.json(body, 200);
  });
}
