import { z } from "@hono/zod-openapi";
import { ctxOf, defineRoute } from "../../http/route";
import { onlyErrorResponses, okData, type Router } from "../../openapi";
import { listWorkspaces } from "../../services/workspaces/workspaces";
import { WorkspaceSchema } from "../../schemas/core";

// E17 has no error body but 401: any orgId, even a malformed one, answers a (possibly empty) list.
const route = defineRoute({
  operationId: "listWorkspaces",
  // The workspaces and their collaborators go in one batch with authentication.
  auth: "batched",
  method: "get",
  path: "/workspace/all/{orgId}",
  tags: ["Workspaces"],
  summary: "E17. List workspaces in an organization",
  description:
    "The workspaces of the organization that the caller collaborates on; `[]` for an organization the caller is not in.",
  request: { params: z.object({ orgId: z.string().openapi({ param: { name: "orgId", in: "path" } }) }) },
  responses: {
    ...okData(z.array(WorkspaceSchema)),
    ...onlyErrorResponses("UnauthorizedError", "RateLimitedError", "InternalError"),
  },
});

export function registerListWorkspaces(app: Router) {
  app.openapi(route, async (c) =>
    c.json({ data: await listWorkspaces(ctxOf(c), { organizationId: c.req.valid("param").orgId }) }, 200),
  );
}
