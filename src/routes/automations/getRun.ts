import { z } from "@hono/zod-openapi";
import { ctxOf, defineRoute } from "../../http/route";
import { errorResponses, okData, pathId, type Router } from "../../openapi";
import { RunSchema } from "../../schemas/automations";
import { getRun } from "../../services/automations/runs";

const route = defineRoute({
  method: "get",
  auth: "batched",
  path: "/automation/run/{runId}",
  operationId: "getAutomationRun",
  tags: ["Automations"],
  summary: "One run, with each action's figures",
  description:
    "Each action carries `status`, `startedAt`, `finishedAt`, `operations`, `affectedRows` and `error`. Readable with project read.",
  request: { params: z.object({ runId: pathId("runId") }) },
  responses: { ...okData(RunSchema), ...errorResponses() },
});

export function registerGetAutomationRun(app: Router) {
  app.openapi(route, async (c) => c.json({ data: await getRun(ctxOf(c), c.req.valid("param")) }, 200));
}
