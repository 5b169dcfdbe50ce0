import { z } from "@hono/zod-openapi";
import { ctxOf, defineRoute } from "../../http/route";
import { errorResponses, okData, pathId, type Router } from "../../openapi";
import { SubscriptionDeliverySchema } from "../../schemas/webhooks";
import { redeliverSubscriptionDelivery } from "../../services/automations/subscriptions/actions";

const route = defineRoute({
  method: "post",
  path: "/webhook/delivery/{id}/redeliver",
  operationId: "redeliverWebhookSubscriptionDelivery",
  tags: ["Webhooks"],
  summary: "Send a webhook subscription's delivery again",
  description:
    "The same entries and `webhook-id`, as a new attempt with the retry schedule started afresh. The subscription's owner or a workspace owner or admin. One attempt at a time: while another is in flight, 409.",
  request: { params: z.object({ id: pathId("id") }) },
  responses: { ...okData(SubscriptionDeliverySchema), ...errorResponses("ConflictError") },
});

export function registerRedeliverWebhookSubscriptionDelivery(app: Router) {
  app.openapi(route, async (c) =>
    c.json({ data: await redeliverSubscriptionDelivery(ctxOf(c), { deliveryId: c.req.valid("param").id }) }, 200),
  );
}
