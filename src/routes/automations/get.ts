import { createRoute, z } from "@hono/zod-openapi";
import { errorResponses, okData, pathId, security, type Router } from "../../openapi";
import { AutomationSchema } from "../../schemas/automations";
import { getAutomation } from "../../services/automations/crud";
import { serviceCtx } from "./ctx";

const route = createRoute({
  method: "get",
  path: "/automation/{id}",
  operationId: "getAutomation",
  tags: ["Automations"],
  summary: "Retrieve an automation",
  description: "Readable with project read. `webhookSecret` is included only for the owner and project admins.",
  security,
  request: { params: z.object({ id: pathId("id") }) },
  responses: { ...okData(AutomationSchema), ...errorResponses() },
});

export function registerGetAutomation(app: Router) {
  app.openapi(route, async (c) => c.json({ data: await getAutomation(serviceCtx(c), c.req.valid("param").id) }, 200));
}
