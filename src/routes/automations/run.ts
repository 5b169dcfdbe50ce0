import { z } from "@hono/zod-openapi";
import { ctxOf, defineRoute } from "../../http/route";
import { errorResponses, okData, pathId, type Router } from "../../openapi";
import { RunSchema } from "../../schemas/automations";
import { runAutomationNow } from "../../services/automations/runs";

const route = defineRoute({
  method: "post",
  path: "/automation/{id}/run",
  operationId: "runAutomation",
  tags: ["Automations"],
  summary: "Run an automation now",
  description:
    "Queues a manual run and answers it (status `queued`); poll `GET /automation/run/{runId}`. Allowed for the owner and project admins, " +
    "and for workspace editors when `runFromButton` is set. A disabled automation is not run (409); the run starts a cascade of its own at depth 1.",
  request: { params: z.object({ id: pathId("id") }) },
  responses: { ...okData(RunSchema), ...errorResponses("ConflictError") },
});

export function registerRunAutomation(app: Router) {
  app.openapi(route, async (c) => c.json({ data: await runAutomationNow(ctxOf(c), c.req.valid("param")) }, 200));
}
