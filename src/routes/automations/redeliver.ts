import { z } from "@hono/zod-openapi";
import { ctxOf, defineRoute } from "../../http/route";
import { errorResponses, okData, pathId, type Router } from "../../openapi";
import { DeliverySchema } from "../../schemas/automations";
import { redeliver } from "../../services/automations/runs";

const route = defineRoute({
  method: "post",
  path: "/automation/delivery/{id}/redeliver",
  operationId: "redeliverWebhook",
  tags: ["Automations"],
  summary: "Send a webhook delivery again",
  description:
    "A new attempt (same `webhook-id`), with the retry schedule started afresh. Owner or project admin. One attempt at a time: a redelivery while another attempt of the delivery is in flight is 409; it counts against the run's `externalWriteBudget` and its cascade's deliveries (409 when used up).",
  request: { params: z.object({ id: pathId("id") }) },
  responses: { ...okData(DeliverySchema), ...errorResponses("ConflictError") },
});

export function registerRedeliverWebhook(app: Router) {
  app.openapi(route, async (c) =>
    c.json({ data: await redeliver(ctxOf(c), { deliveryId: c.req.valid("param").id }) }, 200),
  );
}
