import { z } from "@hono/zod-openapi";
import { ctxOf, defineRoute } from "../../http/route";
import { errorResponses, okData, pathId, type Router } from "../../openapi";
import { rotateWebhookSecret } from "../../services/automations/crud";

const route = defineRoute({
  method: "post",
  path: "/automation/{id}/webhook-secret/rotate",
  operationId: "rotateWebhookSecret",
  tags: ["Automations"],
  summary: "Replace the automation's webhook signing secret",
  description: "Owner or project admin. Deliveries sent from now on are signed with the new `whsec_` secret.",
  request: { params: z.object({ id: pathId("id") }) },
  responses: { ...okData(z.object({ webhookSecret: z.string() })), ...errorResponses() },
});

export function registerRotateWebhookSecret(app: Router) {
  app.openapi(route, async (c) => c.json({ data: await rotateWebhookSecret(ctxOf(c), c.req.valid("param")) }, 200));
}
