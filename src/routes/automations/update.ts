import { z } from "@hono/zod-openapi";
import { ctxOf, defineRoute } from "../../http/route";
import { errorResponses, jsonBody, okData, pathId, type Router } from "../../openapi";
import { AutomationSchema, UpdateAutomationInput } from "../../schemas/automations";
import { updateAutomation } from "../../services/automations/crud";

const route = defineRoute({
  method: "patch",
  path: "/automation/{id}",
  operationId: "updateAutomation",
  tags: ["Automations"],
  summary: "E2. Update an automation",
  description:
    "Owner or project admin only (a run executes with the owner's credentials): anyone else who can read the project gets 403, anyone who cannot gets 404. " +
    "Members given replace the stored ones (`triggers` and `actions` whole); a trigger's `event` is honoured. Members the response carries but a client cannot set " +
    "(ids, timestamps, owner, counters, a trigger's `type`/`mode`/`provider`) are accepted and ignored. `nextRunAt` is recomputed when triggers or `enabled` change.",
  request: { params: z.object({ id: pathId("id") }), ...jsonBody(UpdateAutomationInput) },
  responses: { ...okData(AutomationSchema), ...errorResponses("UnprocessableEntityError") },
});

export function registerUpdateAutomation(app: Router) {
  app.openapi(route, async (c) => c.json({ data: await updateAutomation(ctxOf(c), c.req.valid("param").id, c.req.valid("json")) }, 200));
}
