import { ctxOf, defineRoute } from "../../http/route";
import { dataOf, errorResponses, jsonBody, jsonResponse, type Router } from "../../openapi";
import { CreatedSubscriptionSchema, CreateSubscriptionInput } from "../../schemas/webhooks";
import { createSubscription } from "../../services/automations/subscriptions/crud";

const route = defineRoute({
  method: "post",
  path: "/webhook",
  // The scope's shard: its Idempotency-Key claim and the subscription share a database (the answer kept with the insert).
  shard: { body: ["scope.projectId", "scope.tableId"] },
  operationId: "createWebhookSubscription",
  tags: ["Webhooks"],
  summary: "Subscribe a URL to the change log of a project or table",
  description:
    "Needs write access to the scope (workspace owner, admin or editor; a viewer is 403, no access 404). From now on, the change-log entries of the scope that match `events` (kinds such as `row.updated`, families such as `row.*`, or `*`) and, for `row.updated`, change one of `columnIds`, are POSTed to `url` in batches of up to 100, in order, signed per Standard Webhooks with `secret` — shown only in this answer. The URL follows the automations' rules (https, no private or special-purpose address: 422).",
  request: jsonBody(CreateSubscriptionInput),
  responses: {
    201: jsonResponse(dataOf(CreatedSubscriptionSchema), "Created"),
    ...errorResponses("UnprocessableEntityError"),
  },
});

export function registerCreateWebhookSubscription(app: Router) {
  app.openapi(route, async (c) => c.json({ data: await createSubscription(ctxOf(c), c.req.valid("json")) }, 201));
}
