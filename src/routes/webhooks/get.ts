import { z } from "@hono/zod-openapi";
import { ctxOf, defineRoute } from "../../http/route";
import { errorResponses, okData, pathId, type Router } from "../../openapi";
import { SubscriptionSchema } from "../../schemas/webhooks";
import { getSubscription } from "../../services/automations/subscriptions/crud";

const route = defineRoute({
  method: "get",
  auth: "batched",
  path: "/webhook/{id}",
  operationId: "getWebhookSubscription",
  tags: ["Webhooks"],
  summary: "A webhook subscription",
  description:
    "Readable by whoever has a role in its workspace; `url` is the origin only unless the caller is its owner or a workspace owner or admin. The secret is never shown again (rotate it to get a new one).",
  request: { params: z.object({ id: pathId("id") }) },
  responses: { ...okData(SubscriptionSchema), ...errorResponses() },
});

export function registerGetWebhookSubscription(app: Router) {
  app.openapi(route, async (c) => c.json({ data: await getSubscription(ctxOf(c), c.req.valid("param")) }, 200));
}
