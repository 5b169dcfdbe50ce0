import { defineRoute } from "../../http/route";
import { z } from "@hono/zod-openapi";
import { okData, onlyErrorResponses, pathId, security, type Router } from "../../openapi";
import { requireTable } from "../../auth/access";
import { notFound } from "../../errors";
import { findLiveCell } from "../../services/tables/cells";
import { cellDto } from "../../services/tables/serialize";
import { CellSchema } from "../../schemas/tables";

const route = defineRoute({
  operationId: "getCell",
  method: "get",
  path: "/table/cell/{cellId}",
  tags: ["Cells"],
  summary: "E15. Retrieve a cell",
  description: "404 when the cell does not exist (or its row, column or table is deleted) and when the caller lacks access: the two are not distinguished.",
  security,
  request: { params: z.object({ cellId: pathId("cellId") }) },
  responses: {
    ...okData(CellSchema),
    ...onlyErrorResponses("ValidationError", "UnauthorizedError", "NotFoundError", "RateLimitedError", "InternalError"),
  },
});

export function registerGetCell(app: Router) {
  app.openapi(route, async (c) => {
    const db = c.get("db");
    const cell = await findLiveCell(db, c.req.valid("param").cellId);
    if (!cell) throw notFound("Cell");
    await requireTable(db, c.get("user"), cell.tableId, "read", { as: "Cell" });
    return c.json({ data: cellDto(cell) }, 200);
  });
}
