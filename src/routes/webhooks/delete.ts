import { z } from "@hono/zod-openapi";
import { ctxOf, defineRoute } from "../../http/route";
import { expectedVersionOf } from "../../http/conditional";
import { errorResponses, okData, pathId, type Router } from "../../openapi";
import { deleteSubscription } from "../../services/automations/subscriptions/crud";

const route = defineRoute({
  method: "delete",
  path: "/webhook/{id}",
  operationId: "deleteWebhookSubscription",
  tags: ["Webhooks"],
  summary: "Delete a webhook subscription",
  description:
    "Its owner or a workspace owner or admin. Nothing more is delivered, not even a delivery in flight. " +
    "`If-Match` with the ETag of GET /webhook/{id}: a mismatch is 412 and nothing changes.",
  request: { params: z.object({ id: pathId("id") }) },
  responses: { ...okData(z.object({ success: z.literal(true) })), ...errorResponses("PreconditionFailedError") },
});

export function registerDeleteWebhookSubscription(app: Router) {
  app.openapi(route, async (c) =>
    c.json(
      { data: await deleteSubscription(ctxOf(c), { ...c.req.valid("param"), expected: expectedVersionOf(c) }) },
      200,
    ),
  );
}
