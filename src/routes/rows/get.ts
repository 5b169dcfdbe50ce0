import { defineRoute, ctxOf } from "../../http/route";
import { z } from "@hono/zod-openapi";
import { jsonWithEtag } from "../../http/conditional";
import { okData, onlyErrorResponses, pathId, type Router } from "../../openapi";
import { getRow } from "../../services/tables/rowReads";
import { RowSchema } from "../../schemas/tables";

const route = defineRoute({
  operationId: "getRow",
  auth: "batched",
  method: "get",
  path: "/table/row/{rowId}",
  tags: ["Rows"],
  summary: "E16. Retrieve a row",
  description:
    "404 when the row does not exist (or is deleted, or its table is) and when the caller lacks access: the two are not distinguished. " +
    "Carries a strong ETag; If-None-Match answers 304.",
  request: { params: z.object({ rowId: pathId("rowId") }) },
  responses: {
    ...okData(RowSchema),
    304: { description: "Not modified (If-None-Match matched the ETag)" },
    ...onlyErrorResponses("ValidationError", "UnauthorizedError", "NotFoundError", "RateLimitedError", "InternalError"),
  },
});

export function registerGetRow(app: Router) {
  app.openapi(route, async (c) => jsonWithEtag(c, { data: await getRow(ctxOf(c), c.req.valid("param")) }));
}
