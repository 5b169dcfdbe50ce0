import { z } from "@hono/zod-openapi";
import { ctxOf, defineRoute } from "../../http/route";
import { errorResponses, okData, pathId, type Router } from "../../openapi";
import { AutomationSchema } from "../../schemas/automations";
import { listAutomations } from "../../services/automations/crud";

const route = defineRoute({
  method: "get",
  auth: "batched",
  path: "/automation/all/{projectId}",
  operationId: "listAutomations",
  tags: ["Automations"],
  summary: "List a project's automations",
  description: "Live automations of the project in creation order (at most 1000). A project the caller cannot read is 404.",
  request: { params: z.object({ projectId: pathId("projectId") }) },
  responses: { ...okData(z.array(AutomationSchema)), ...errorResponses() },
});

export function registerListAutomations(app: Router) {
  app.openapi(route, async (c) => c.json({ data: await listAutomations(ctxOf(c), c.req.valid("param").projectId) }, 200));
}
