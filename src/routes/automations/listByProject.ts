import { z } from "@hono/zod-openapi";
import { ctxOf, defineRoute } from "../../http/route";
import { errorResponses, jsonResponse, pathId, type Router } from "../../openapi";
import { AutomationSchema } from "../../schemas/automations";
import { listAutomations } from "../../services/automations/crud";

const route = defineRoute({
  method: "get",
  auth: "batched",
  path: "/automation/all/{projectId}",
  operationId: "listAutomations",
  tags: ["Automations"],
  summary: "List a project's automations",
  description:
    "Live automations of the project in creation order, paged: `limit` 1–1000 (default 1000), `cursor` from the previous page's `nextCursor` " +
    "(null on the last page; a cursor this listing did not issue is 400). A project the caller cannot read is 404. " +
    "Readers who cannot change an automation see its webhook URLs as their origin only.",
  request: {
    params: z.object({ projectId: pathId("projectId") }),
    query: z.object({
      limit: z.coerce.number().int().min(1).max(1000).default(1000),
      cursor: z.string().min(1).max(200).optional(),
    }),
  },
  responses: {
    200: jsonResponse(z.object({ data: z.array(AutomationSchema), nextCursor: z.string().nullable() })),
    ...errorResponses(),
  },
});

export function registerListAutomations(app: Router) {
  app.openapi(route, async (c) =>
    c.json(
      await listAutomations(ctxOf(c), { projectId: c.req.valid("param").projectId, ...c.req.valid("query") }),
      200,
    ),
  );
}
