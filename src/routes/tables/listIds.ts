import { defineRoute } from "../../http/route";
import { z } from "@hono/zod-openapi";
import { okData, onlyErrorResponses, pathId, security, type Router } from "../../openapi";
import { requireProject } from "../../auth/access";
import { tableIdsOfProject } from "../../services/tables/tables";

const route = defineRoute({
  operationId: "listTableIds",
  method: "get",
  path: "/table/all/{projectId}/id",
  tags: ["Tables"],
  summary: "E19. List table IDs in a project",
  description: "The `_id` of every non-deleted table in the project, newest first. Needs project read access (else 404).",
  security,
  request: { params: z.object({ projectId: pathId("projectId") }) },
  responses: {
    ...okData(z.array(z.object({ _id: z.string() }).openapi("TableId"))),
    ...onlyErrorResponses("ValidationError", "UnauthorizedError", "NotFoundError", "RateLimitedError", "InternalError"),
  },
});

export function registerListTableIds(app: Router) {
  app.openapi(route, async (c) => {
    const db = c.get("db");
    const { projectId } = c.req.valid("param");
    await requireProject(db, c.get("user"), projectId, "read");
    const ids = await tableIdsOfProject(db, projectId);
    return c.json({ data: ids.map((_id) => ({ _id })) }, 200);
  });
}
