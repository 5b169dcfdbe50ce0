import { ctxOf, defineRoute } from "../../http/route";
import { errorResponses, jsonBody, okData, type Router } from "../../openapi";
import { AutomationSchema, CreateAutomationInput } from "../../schemas/automations";
import { createAutomation } from "../../services/automations/crud";

const route = defineRoute({
  method: "post",
  path: "/automation",
  shard: { body: "projectId" },
  operationId: "createAutomation",
  tags: ["Automations"],
  summary: "Create an automation",
  description:
    "Needs write access to the project (workspace owner, admin or editor); the caller becomes its owner and it runs with the owner's rights. " +
    "Triggers: `cron` + `timezone` (IANA, default UTC), `runAt` (once), or `event` (row.created, row.updated, row.deleted, document.created) narrowed by `filter`. " +
    "Budgets outside their bounds are 400; an invalid cron or time zone, or a webhook URL that is not https or points at a private address, is 422.",
  request: jsonBody(CreateAutomationInput),
  responses: { ...okData(AutomationSchema), ...errorResponses("UnprocessableEntityError") },
});

export function registerCreateAutomation(app: Router) {
  app.openapi(route, async (c) => c.json({ data: await createAutomation(ctxOf(c), c.req.valid("json")) }, 200));
}
