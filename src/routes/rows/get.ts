import { defineRoute } from "../../http/route";
import { z } from "@hono/zod-openapi";
import { okData, onlyErrorResponses, pathId, security, type Router } from "../../openapi";
import { requireTable } from "../../auth/access";
import { notFound } from "../../errors";
import { findLiveRow } from "../../services/tables/rows";
import { rowDto } from "../../services/tables/serialize";
import { RowSchema } from "../../schemas/tables";

const route = defineRoute({
  operationId: "getRow",
  method: "get",
  path: "/table/row/{rowId}",
  tags: ["Rows"],
  summary: "E16. Retrieve a row",
  description: "404 when the row does not exist (or is deleted, or its table is) and when the caller lacks access: the two are not distinguished.",
  security,
  request: { params: z.object({ rowId: pathId("rowId") }) },
  responses: {
    ...okData(RowSchema),
    ...onlyErrorResponses("ValidationError", "UnauthorizedError", "NotFoundError", "RateLimitedError", "InternalError"),
  },
});

export function registerGetRow(app: Router) {
  app.openapi(route, async (c) => {
    const db = c.get("db");
    const row = await findLiveRow(db, c.req.valid("param").rowId);
    if (!row) throw notFound("Row");
    await requireTable(db, c.get("user"), row.tableId, "read", { as: "Row" });
    return c.json({ data: rowDto(row) }, 200);
  });
}
