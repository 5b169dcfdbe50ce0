import { z } from "@hono/zod-openapi";
import { ctxOf, defineRoute } from "../../http/route";
import { errorResponses, okData, pathId, type Router } from "../../openapi";
import { deleteSubscription } from "../../services/automations/subscriptions/crud";

const route = defineRoute({
  method: "delete",
  path: "/webhook/{id}",
  operationId: "deleteWebhookSubscription",
  tags: ["Webhooks"],
  summary: "Delete a webhook subscription",
  description: "Its owner or a workspace owner or admin. Nothing more is delivered, not even a delivery in flight.",
  request: { params: z.object({ id: pathId("id") }) },
  responses: { ...okData(z.object({ success: z.literal(true) })), ...errorResponses() },
});

export function registerDeleteWebhookSubscription(app: Router) {
  app.openapi(route, async (c) => c.json({ data: await deleteSubscription(ctxOf(c), c.req.valid("param")) }, 200));
}
