import { createRoute, z } from "@hono/zod-openapi";
import { errorResponses, jsonResponse, pathId, security, type Router } from "../../openapi";
import { DELIVERY_STATUSES, DeliverySchema } from "../../schemas/automations";
import { listDeliveries } from "../../services/automations/crud";
import { serviceCtx } from "./ctx";

const route = createRoute({
  method: "get",
  path: "/automation/{id}/deliveries",
  operationId: "listWebhookDeliveries",
  tags: ["Automations"],
  summary: "An automation's webhook deliveries, newest first",
  description: "Each with its attempts (`at`, `durationMs`, `httpStatus` or `error`) and `nextAttemptAt` while a retry is due. Paged like runs.",
  security,
  request: {
    params: z.object({ id: pathId("id") }),
    query: z.object({
      limit: z.coerce.number().int().min(1).max(100).default(20),
      cursor: z.string().min(1).max(200).optional(),
      status: z.enum(DELIVERY_STATUSES).optional(),
    }),
  },
  responses: { 200: jsonResponse(z.object({ data: z.array(DeliverySchema), nextCursor: z.string().nullable() })), ...errorResponses() },
});

export function registerListWebhookDeliveries(app: Router) {
  app.openapi(route, async (c) => c.json(await listDeliveries(serviceCtx(c), c.req.valid("param").id, c.req.valid("query")), 200));
}
