import { createRoute, z } from "@hono/zod-openapi";
import { errorResponses, okData, pathId, security, type Router } from "../../openapi";
import { DeliverySchema } from "../../schemas/automations";
import { redeliver } from "../../services/automations/crud";
import { serviceCtx } from "./ctx";

const route = createRoute({
  method: "post",
  path: "/automation/delivery/{id}/redeliver",
  operationId: "redeliverWebhook",
  tags: ["Automations"],
  summary: "Send a webhook delivery again",
  description: "A new attempt (same `webhook-id`), with the retry schedule started afresh. Owner or project admin.",
  security,
  request: { params: z.object({ id: pathId("id") }) },
  responses: { ...okData(DeliverySchema), ...errorResponses() },
});

export function registerRedeliverWebhook(app: Router) {
  app.openapi(route, async (c) => c.json({ data: await redeliver(serviceCtx(c), c.req.valid("param").id) }, 200));
}
