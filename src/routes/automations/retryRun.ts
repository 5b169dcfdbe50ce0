import { z } from "@hono/zod-openapi";
import { ctxOf, defineRoute } from "../../http/route";
import { errorResponses, okData, pathId, type Router } from "../../openapi";
import { RunSchema } from "../../schemas/automations";
import { retryRun } from "../../services/automations/runs";

const route = defineRoute({
  method: "post",
  path: "/automation/run/{runId}/retry",
  operationId: "retryAutomationRun",
  tags: ["Automations"],
  summary: "Run a run's trigger again",
  description:
    "Queues a new run with the same trigger, carrying `retryOf`. Same rights as a manual run. It spends what is left of the original run's cascade budget, at its depth; a disabled automation is not retried (409).",
  request: { params: z.object({ runId: pathId("runId") }) },
  responses: { ...okData(RunSchema), ...errorResponses("ConflictError") },
});

export function registerRetryAutomationRun(app: Router) {
  app.openapi(route, async (c) => c.json({ data: await retryRun(ctxOf(c), c.req.valid("param")) }, 200));
}
