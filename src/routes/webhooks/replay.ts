import { z } from "@hono/zod-openapi";
import { ctxOf, defineRoute } from "../../http/route";
import { errorResponses, jsonBody, okData, pathId, type Router } from "../../openapi";
import { ReplayInput, SubscriptionSchema } from "../../schemas/webhooks";
import { replaySubscription } from "../../services/automations/subscriptions/actions";

const route = defineRoute({
  method: "post",
  path: "/webhook/{id}/replay",
  operationId: "replayWebhookSubscription",
  tags: ["Webhooks"],
  summary: "Deliver a webhook subscription's entries again from a cursor",
  description:
    "Sets the subscription's cursor to `cursor` (from GET /changes, an entry, or a delivery's body): the entries after it are delivered again, in order. A delivery in flight is dropped; failures reset. The subscription's owner or a workspace owner or admin. A cursor older than the change log's retention is 410.",
  request: { params: z.object({ id: pathId("id") }), ...jsonBody(ReplayInput) },
  responses: { ...okData(SubscriptionSchema), ...errorResponses("GoneError") },
});

export function registerReplayWebhookSubscription(app: Router) {
  app.openapi(route, async (c) =>
    c.json({ data: await replaySubscription(ctxOf(c), { ...c.req.valid("json"), id: c.req.valid("param").id }) }, 200),
  );
}
