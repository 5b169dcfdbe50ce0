import { createRoute, z } from "@hono/zod-openapi";
import { errorResponses, okData, pathId, security, type Router } from "../../openapi";
import { deleteAutomation } from "../../services/automations/crud";
import { serviceCtx } from "./ctx";

const route = createRoute({
  method: "delete",
  path: "/automation/{id}",
  operationId: "deleteAutomation",
  tags: ["Automations"],
  summary: "Delete an automation",
  description: "Owner or project admin. It stops running at once; its runs and deliveries stay readable for their retention period through nothing else.",
  security,
  request: { params: z.object({ id: pathId("id") }) },
  responses: { ...okData(z.object({ success: z.literal(true) })), ...errorResponses() },
});

export function registerDeleteAutomation(app: Router) {
  app.openapi(route, async (c) => c.json({ data: await deleteAutomation(serviceCtx(c), c.req.valid("param").id) }, 200));
}
