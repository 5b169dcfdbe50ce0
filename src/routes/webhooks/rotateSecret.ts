import { z } from "@hono/zod-openapi";
import { ctxOf, defineRoute } from "../../http/route";
import { errorResponses, okData, pathId, type Router } from "../../openapi";
import { rotateSubscriptionSecret } from "../../services/automations/subscriptions/crud";

const route = defineRoute({
  method: "post",
  path: "/webhook/{id}/rotate-secret",
  operationId: "rotateWebhookSubscriptionSecret",
  tags: ["Webhooks"],
  summary: "Replace a webhook subscription's signing secret",
  description:
    "Its owner or a workspace owner or admin. Answers the new `whsec_` secret, once; every attempt from now on is signed with it.",
  request: { params: z.object({ id: pathId("id") }) },
  responses: { ...okData(z.object({ secret: z.string() })), ...errorResponses() },
});

export function registerRotateWebhookSubscriptionSecret(app: Router) {
  app.openapi(route, async (c) =>
    c.json({ data: await rotateSubscriptionSecret(ctxOf(c), c.req.valid("param")) }, 200),
  );
}
