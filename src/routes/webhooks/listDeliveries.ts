import { z } from "@hono/zod-openapi";
import { ctxOf, defineRoute } from "../../http/route";
import { errorResponses, jsonResponse, pathId, type Router } from "../../openapi";
import { SUBSCRIPTION_DELIVERY_STATUSES, SubscriptionDeliverySchema } from "../../schemas/webhooks";
import { listSubscriptionDeliveries } from "../../services/automations/subscriptions/actions";

const route = defineRoute({
  method: "get",
  auth: "batched",
  path: "/webhook/{id}/deliveries",
  operationId: "listWebhookSubscriptionDeliveries",
  tags: ["Webhooks"],
  summary: "A webhook subscription's deliveries, newest first",
  description:
    "Each batch sent: its entry count, the cursor of its last entry, its attempts (`at`, `durationMs`, `httpStatus` or `error`) and `nextAttemptAt` while a retry is due. Paged with `limit`/`cursor`, filtered by `status`.",
  request: {
    params: z.object({ id: pathId("id") }),
    query: z.object({
      limit: z.coerce.number().int().min(1).max(100).default(20),
      cursor: z.string().min(1).max(200).optional(),
      status: z.enum(SUBSCRIPTION_DELIVERY_STATUSES).optional(),
    }),
  },
  responses: {
    200: jsonResponse(z.object({ data: z.array(SubscriptionDeliverySchema), nextCursor: z.string().nullable() })),
    ...errorResponses(),
  },
});

export function registerListWebhookSubscriptionDeliveries(app: Router) {
  app.openapi(route, async (c) =>
    c.json(await listSubscriptionDeliveries(ctxOf(c), { ...c.req.valid("query"), id: c.req.valid("param").id }), 200),
  );
}
