import { z } from "@hono/zod-openapi";
import { ctxOf, defineRoute } from "../../http/route";
import { errorResponses, jsonResponse, pathId, type Router } from "../../openapi";
import { RUN_STATUSES, RunSchema } from "../../schemas/automations";
import { listRuns } from "../../services/automations/runs";

const route = defineRoute({
  method: "get",
  auth: "batched",
  path: "/automation/{id}/runs",
  operationId: "listAutomationRuns",
  tags: ["Automations"],
  summary: "An automation's runs, newest first",
  description:
    "Readable with project read. Paged: `limit` 1–100 (default 20), `cursor` from `nextCursor`, optional `status` filter. Runs are kept 90 days.",
  request: {
    params: z.object({ id: pathId("id") }),
    query: z.object({
      limit: z.coerce.number().int().min(1).max(100).default(20),
      cursor: z.string().min(1).max(200).optional(),
      status: z.enum(RUN_STATUSES).optional(),
    }),
  },
  responses: {
    200: jsonResponse(z.object({ data: z.array(RunSchema), nextCursor: z.string().nullable() })),
    ...errorResponses(),
  },
});

export function registerListAutomationRuns(app: Router) {
  app.openapi(route, async (c) =>
    c.json(await listRuns(ctxOf(c), { automationId: c.req.valid("param").id, ...c.req.valid("query") }), 200),
  );
}
