import { z } from "@hono/zod-openapi";
import { ctxOf, defineRoute } from "../../http/route";
import { errorResponses, jsonResponse, pathId, type Router } from "../../openapi";
import { DELIVERY_STATUSES, DeliverySchema } from "../../schemas/automations";
import { listDeliveries } from "../../services/automations/runs";

const route = defineRoute({
  method: "get",
  auth: "batched",
  path: "/automation/{id}/deliveries",
  operationId: "listWebhookDeliveries",
  tags: ["Automations"],
  summary: "An automation's webhook deliveries, newest first",
  description:
    "Each with its attempts (`at`, `durationMs`, `httpStatus` or `error`) and `nextAttemptAt` while a retry is due. Paged like runs.",
  request: {
    params: z.object({ id: pathId("id") }),
    query: z.object({
      limit: z.coerce.number().int().min(1).max(100).default(20),
      cursor: z.string().min(1).max(200).optional(),
      status: z.enum(DELIVERY_STATUSES).optional(),
    }),
  },
  responses: {
    200: jsonResponse(z.object({ data: z.array(DeliverySchema), nextCursor: z.string().nullable() })),
    ...errorResponses(),
  },
});

export function registerListWebhookDeliveries(app: Router) {
  app.openapi(route, async (c) =>
    c.json(await listDeliveries(ctxOf(c), { automationId: c.req.valid("param").id, ...c.req.valid("query") }), 200),
  );
}
