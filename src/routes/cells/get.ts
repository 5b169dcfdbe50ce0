import { defineRoute, ctxOf } from "../../http/route";
import { z } from "@hono/zod-openapi";
import { jsonWithEtag } from "../../http/conditional";
import { okData, onlyErrorResponses, pathId, type Router } from "../../openapi";
import { getCell } from "../../services/tables/cells";
import { CellSchema } from "../../schemas/tables";

const route = defineRoute({
  operationId: "getCell",
  auth: "batched",
  method: "get",
  path: "/table/cell/{cellId}",
  tags: ["Cells"],
  summary: "E15. Retrieve a cell",
  description:
    "404 when the cell does not exist (or its row, column or table is deleted) and when the caller lacks access: the two are not distinguished. " +
    "Carries a strong ETag; If-None-Match answers 304.",
  request: { params: z.object({ cellId: pathId("cellId") }) },
  responses: {
    ...okData(CellSchema),
    304: { description: "Not modified (If-None-Match matched the ETag)" },
    ...onlyErrorResponses("ValidationError", "UnauthorizedError", "NotFoundError", "RateLimitedError", "InternalError"),
  },
});

export function registerGetCell(app: Router) {
  app.openapi(route, async (c) => jsonWithEtag(c, { data: await getCell(ctxOf(c), c.req.valid("param")) }));
}
