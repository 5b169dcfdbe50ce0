import { z } from "@hono/zod-openapi";
import { ctxOf, defineRoute } from "../../http/route";
import { jsonTextWithEtag } from "../../http/conditional";
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
    "Readable by whoever has a role in its workspace; `url` is the origin only unless the caller is its owner or a workspace owner or admin. The secret is never shown again (rotate it to get a new one). " +
    "Strong ETag (the same while the subscription does not change: the `cursor`'s issue time is not part of it); If-None-Match answers 304.",
  request: { params: z.object({ id: pathId("id") }) },
  responses: {
    ...okData(SubscriptionSchema),
    ...errorResponses(),
    304: { description: "Not modified (If-None-Match matched the ETag)" },
  },
});

export function registerGetWebhookSubscription(app: Router) {
  app.openapi(route, async (c) => {
    const { data, etag } = await getSubscription(ctxOf(c), c.req.valid("param"));
    return jsonTextWithEtag(c, etag, async () => ({ etag, text: JSON.stringify({ data }) }));
  });
}
