import { z } from "@hono/zod-openapi";
import { ctxOf, defineRoute } from "../../http/route";
import { errorResponses, jsonBody, okData, pathId, type Router } from "../../openapi";
import { SubscriptionSchema, UpdateSubscriptionInput } from "../../schemas/webhooks";
import { updateSubscription } from "../../services/automations/subscriptions/crud";

const route = defineRoute({
  method: "patch",
  path: "/webhook/{id}",
  operationId: "updateWebhookSubscription",
  tags: ["Webhooks"],
  summary: "Change a webhook subscription",
  description:
    'Its owner or a workspace owner or admin. Only the members named change. `status: "active"` re-enables a disabled subscription (its failures reset; it goes on from its cursor); `"disabled"` stops it.',
  request: { params: z.object({ id: pathId("id") }), ...jsonBody(UpdateSubscriptionInput) },
  responses: { ...okData(SubscriptionSchema), ...errorResponses("UnprocessableEntityError") },
});

export function registerUpdateWebhookSubscription(app: Router) {
  app.openapi(route, async (c) =>
    c.json({ data: await updateSubscription(ctxOf(c), { ...c.req.valid("json"), id: c.req.valid("param").id }) }, 200),
  );
}
