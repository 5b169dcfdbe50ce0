import { z } from "@hono/zod-openapi";
import { ctxOf, defineRoute } from "../../http/route";
import { expectedVersionOf, withEtag } from "../../http/conditional";
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
    "(ids, timestamps, owner, counters, a trigger's `type`/`mode`/`provider`) are accepted and ignored. `nextRunAt` is recomputed when triggers or `enabled` change. " +
    "`If-Match` with the ETag of GET /automation/{id}: a mismatch is 412 and nothing changes.",
  request: { params: z.object({ id: pathId("id") }), ...jsonBody(UpdateAutomationInput) },
  responses: {
    ...okData(AutomationSchema),
    ...errorResponses("UnprocessableEntityError", "PreconditionFailedError", "ConflictError"),
  },
});

export function registerUpdateAutomation(app: Router) {
  app.openapi(route, async (c) => {
    const data = await updateAutomation(ctxOf(c), {
      automationId: c.req.valid("param").id,
      patch: c.req.valid("json"),
      expected: expectedVersionOf(c),
    });
    await withEtag(c, { data });
    return c.json({ data }, 200);
  });
}
