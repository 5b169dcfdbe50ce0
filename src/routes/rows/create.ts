import { defineRoute } from "../../http/route";
import { z } from "@hono/zod-openapi";
import { errorResponses, jsonBody, okData, pathId, security, type Router } from "../../openapi";
import { requireTable } from "../../auth/access";
import { createRows, storedCellsOfRow } from "../../services/tables/rows";
import { cellDto, rowDto } from "../../services/tables/serialize";
import { CellSchema, RowSchema } from "../../schemas/tables";
import { RowInput } from "./schema";
import { emitAfterResponse, rowEvent } from "../../services/automations/events";

const route = defineRoute({
  operationId: "createRow",
  method: "post",
  path: "/table/{tableId}/row",
  tags: ["Rows"],
  summary: "Add a row",
  description:
    "Each value is checked against its column's type (400 with a detail per problem; a computed column is 409). " +
    "`cells` in the response are the row's stored Cell records after formula recalculation.",
  security,
  request: { params: z.object({ tableId: pathId("tableId") }), ...jsonBody(RowInput) },
  responses: { ...okData(z.object({ row: RowSchema, cells: z.array(CellSchema) })), ...errorResponses("ConflictError") },
});

export function registerCreateRow(app: Router) {
  app.openapi(route, async (c) => {
    const db = c.get("db");
    const user = c.get("user");
    const body = c.req.valid("json");
    const { table } = await requireTable(db, user, c.req.valid("param").tableId, "write");
    const { rows } = await createRows(db, c.env, table, user._id, [body.cells], { pathOf: () => "cells" });
    const row = rows[0]!;
    emitAfterResponse((p) => c.executionCtx.waitUntil(p), c.env, [rowEvent("row.created", table, row.id, Object.keys(body.cells ?? {}))]);
    const cells = await storedCellsOfRow(db, row.id);
    return c.json({ data: { row: rowDto(row), cells: cells.map(cellDto) } }, 200);
  });
}
