import { defineRoute, ctxOf } from "../../http/route";
import { z } from "@hono/zod-openapi";
import { okData, onlyErrorResponses, pathId, type Router } from "../../openapi";
import { listTableIds } from "../../services/tables/tables";

const route = defineRoute({
  operationId: "listTableIds",
  auth: "batched",
  method: "get",
  path: "/table/all/{projectId}/id",
  tags: ["Tables"],
  summary: "E19. List table IDs in a project",
  description:
    "The `_id` of every non-deleted table in the project, newest first. Needs project read access (else 404).",
  request: { params: z.object({ projectId: pathId("projectId") }) },
  responses: {
    ...okData(z.array(z.object({ _id: z.string() }).openapi("TableId"))),
    ...onlyErrorResponses("ValidationError", "UnauthorizedError", "NotFoundError", "RateLimitedError", "InternalError"),
  },
});

export function registerListTableIds(app: Router) {
  app.openapi(route, async (c) => {
    const ids = await listTableIds(ctxOf(c), c.req.valid("param"));
    return c.json({ data: ids.map((_id) => ({ _id })) }, 200);
  });
}
