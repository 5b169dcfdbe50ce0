import { z } from "@hono/zod-openapi";
import { ctxOf, defineRoute } from "../../http/route";
import { errorResponses, jsonResponse, type Router } from "../../openapi";
import { SubscriptionSchema } from "../../schemas/webhooks";
import { listSubscriptions } from "../../services/automations/subscriptions/crud";

const route = defineRoute({
  method: "get",
  auth: "batched",
  roundTrips: 1,
  // Every shard database at once, beside the token's check.
  shard: "service",
  path: "/webhook/all",
  operationId: "listWebhookSubscriptions",
  tags: ["Webhooks"],
  summary: "The webhook subscriptions of the caller's workspaces, newest first",
  description:
    "Every subscription in a workspace where the caller has a role, across its organizations. `url` is the origin only unless the caller may change the subscription. Paged with `limit` (1–100, default 20) and `nextCursor`.",
  request: {
    query: z.object({
      limit: z.coerce.number().int().min(1).max(100).default(20),
      cursor: z.string().min(1).max(200).optional(),
    }),
  },
  responses: {
    200: jsonResponse(z.object({ data: z.array(SubscriptionSchema), nextCursor: z.string().nullable() })),
    ...errorResponses(),
  },
});

export function registerListWebhookSubscriptions(app: Router) {
  app.openapi(route, async (c) => c.json(await listSubscriptions(ctxOf(c), c.req.valid("query")), 200));
}
