import { createRoute, z } from "@hono/zod-openapi";
import { errorResponses, okData, pathId, security, type Router } from "../../openapi";
import { RunSchema } from "../../schemas/automations";
import { runAutomationNow } from "../../services/automations/crud";
import { serviceCtx } from "./ctx";

const route = createRoute({
  method: "post",
  path: "/automation/{id}/run",
  operationId: "runAutomation",
  tags: ["Automations"],
  summary: "Run an automation now",
  description:
    "Queues a manual run and answers it (status `queued`); poll `GET /automation/run/{runId}`. Allowed for the owner and project admins, " +
    "and for workspace editors when `runFromButton` is set. A disabled automation can still be run by hand.",
  security,
  request: { params: z.object({ id: pathId("id") }) },
  responses: { ...okData(RunSchema), ...errorResponses() },
});

export function registerRunAutomation(app: Router) {
  app.openapi(route, async (c) => c.json({ data: await runAutomationNow(serviceCtx(c), c.req.valid("param").id) }, 200));
}
