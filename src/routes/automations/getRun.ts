import { createRoute, z } from "@hono/zod-openapi";
import { errorResponses, okData, pathId, security, type Router } from "../../openapi";
import { RunSchema } from "../../schemas/automations";
import { getRun } from "../../services/automations/crud";
import { serviceCtx } from "./ctx";

const route = createRoute({
  method: "get",
  path: "/automation/run/{runId}",
  operationId: "getAutomationRun",
  tags: ["Automations"],
  summary: "One run, with each action's figures",
  description: "Each action carries `status`, `startedAt`, `finishedAt`, `operations`, `affectedRows` and `error`. Readable with project read.",
  security,
  request: { params: z.object({ runId: pathId("runId") }) },
  responses: { ...okData(RunSchema), ...errorResponses() },
});

export function registerGetAutomationRun(app: Router) {
  app.openapi(route, async (c) => c.json({ data: await getRun(serviceCtx(c), c.req.valid("param").runId) }, 200));
}
