import { defineRoute, ctxOf } from "../../http/route";
import { z } from "@hono/zod-openapi";
import { errorResponses, jsonBody, okData, pathId, type Router } from "../../openapi";
import { createView } from "../../services/views/views";
import { ViewCreateInput, viewMembers, ViewSchema } from "./schema";

const route = defineRoute({
  operationId: "createView",
  method: "post",
  path: "/table/{tableId}/view",
  tags: ["Views"],
  summary: "Save a view: a named filter, sort, fields and hidden columns",
  description:
    "Needs write access to the table. The filter, sort and column ids are checked as a row query checks them (422 with paths).",
  request: { params: z.object({ tableId: pathId("tableId") }), ...jsonBody(ViewCreateInput) },
  responses: { ...okData(ViewSchema), ...errorResponses("UnprocessableEntityError") },
});

export function registerCreateView(app: Router) {
  app.openapi(route, async (c) => {
    const body = c.req.valid("json");
    const view = await createView(ctxOf(c), {
      tableId: c.req.valid("param").tableId,
      view: { ...viewMembers(body), name: body.name },
    });
    return c.json({ data: view }, 200);
  });
}
