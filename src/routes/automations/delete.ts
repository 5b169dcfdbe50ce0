import { z } from "@hono/zod-openapi";
import { ctxOf, defineRoute } from "../../http/route";
import { expectedVersionOf } from "../../http/conditional";
import { errorResponses, okData, pathId, type Router } from "../../openapi";
import { deleteAutomation } from "../../services/automations/crud";

const route = defineRoute({
  method: "delete",
  path: "/automation/{id}",
  operationId: "deleteAutomation",
  tags: ["Automations"],
  summary: "Delete an automation",
  description:
    "Owner or project admin. It stops running at once; its runs and deliveries stay readable for their retention period through nothing else. `If-Match` with the ETag of GET /automation/{id}: a mismatch is 412 and nothing changes.",
  request: { params: z.object({ id: pathId("id") }) },
  responses: { ...okData(z.object({ success: z.literal(true) })), ...errorResponses("PreconditionFailedError") },
});

export function registerDeleteAutomation(app: Router) {
  app.openapi(route, async (c) =>
    c.json(
      {
        data: await deleteAutomation(ctxOf(c), {
          automationId: c.req.valid("param").id,
          expected: expectedVersionOf(c),
        }),
      },
      200,
    ),
  );
}
