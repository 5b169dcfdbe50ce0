import { defineRoute } from "../../http/route";
import { z } from "@hono/zod-openapi";
import { errorResponses, okData, pathId, security, type Router } from "../../openapi";
import { requireWorkspace } from "../../auth/access";
import { workspaceCollaboratorsOf, workspaceDto } from "../../services/workspaces/serialize";
import { WorkspaceSchema } from "../../schemas/core";

const route = defineRoute({
  operationId: "getWorkspace",
  method: "get",
  path: "/workspace/{id}",
  tags: ["Workspaces"],
  summary: "Retrieve a workspace the caller collaborates on",
  security,
  request: { params: z.object({ id: pathId("id") }) },
  responses: { ...okData(WorkspaceSchema), ...errorResponses() },
});

export function registerGetWorkspace(app: Router) {
  app.openapi(route, async (c) => {
    const db = c.get("db");
    const { workspace } = await requireWorkspace(db, c.get("user"), c.req.valid("param").id, "read");
    const collabs = await workspaceCollaboratorsOf(db, [workspace.id]);
    return c.json({ data: workspaceDto(workspace, collabs.get(workspace.id) ?? []) }, 200);
  });
}
