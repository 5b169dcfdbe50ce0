import { z } from "@hono/zod-openapi";
import { ctxOf, defineRoute } from "../../http/route";
import { jsonWithEtag } from "../../http/conditional";
import { errorResponses, okData, pathId, type Router } from "../../openapi";
import { AutomationSchema } from "../../schemas/automations";
import { getAutomation } from "../../services/automations/crud";

const route = defineRoute({
  method: "get",
  auth: "batched",
  path: "/automation/{id}",
  operationId: "getAutomation",
  tags: ["Automations"],
  summary: "Retrieve an automation",
  description:
    "Readable with project read. `webhookSecret` is included only for the owner and project admins. Strong ETag; If-None-Match answers 304.",
  request: { params: z.object({ id: pathId("id") }) },
  responses: {
    ...okData(AutomationSchema),
    ...errorResponses(),
    304: { description: "Not modified (If-None-Match matched the ETag)" },
  },
});

export function registerGetAutomation(app: Router) {
  app.openapi(route, async (c) => jsonWithEtag(c, { data: await getAutomation(ctxOf(c), c.req.valid("param")) }));
}
