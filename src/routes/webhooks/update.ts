import { z } from "@hono/zod-openapi";
import { ctxOf, defineRoute } from "../../http/route";
import { expectedVersionOf } from "../../http/conditional";
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
    'Its owner or a workspace owner or admin. Only the members named change. `status: "active"` re-enables a disabled subscription (its failures reset; it goes on from its cursor); `"disabled"` stops it. ' +
    "`If-Match` with the ETag of GET /webhook/{id}: a mismatch is 412 and nothing changes; the answer carries the new ETag.",
  request: { params: z.object({ id: pathId("id") }), ...jsonBody(UpdateSubscriptionInput) },
  responses: {
    ...okData(SubscriptionSchema),
    ...errorResponses("UnprocessableEntityError", "PreconditionFailedError"),
  },
});

export function registerUpdateWebhookSubscription(app: Router) {
  app.openapi(route, async (c) => {
    const { data, etag } = await updateSubscription(ctxOf(c), {
      ...c.req.valid("json"),
      id: c.req.valid("param").id,
      expected: expectedVersionOf(c),
    });
    c.header("ETag", etag);
    return c.json({ data }, 200);
  });
}
