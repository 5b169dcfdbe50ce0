import { defineRoute } from "../../http/route";
import { z } from "@hono/zod-openapi";
import { errorResponses, okData, pathId, security, type Router } from "../../openapi";
import { requireTable } from "../../auth/access";
import { notFound } from "../../errors";
import { findLiveRow, softDeleteRow } from "../../services/tables/rows";
import { SuccessSchema } from "../../schemas/tables";
import { emitAfterResponse, rowEvent } from "../../services/automations/events";

const route = defineRoute({
  operationId: "deleteRow",
  method: "delete",
  path: "/table/row/{rowId}",
  tags: ["Rows"],
  summary: "Soft-delete a row (its cells vanish)",
  security,
  request: { params: z.object({ rowId: pathId("rowId") }) },
  responses: { ...okData(SuccessSchema), ...errorResponses() },
});

export function registerDeleteRow(app: Router) {
  app.openapi(route, async (c) => {
    const db = c.get("db");
    const row = await findLiveRow(db, c.req.valid("param").rowId);
    if (!row) throw notFound("Row");
    const { table } = await requireTable(db, c.get("user"), row.tableId, "write", { as: "Row" });
    await softDeleteRow(db, row);
    emitAfterResponse((p) => c.executionCtx.waitUntil(p), c.env, [rowEvent("row.deleted", table, row.id)]);
    return c.json({ data: { success: true as const } }, 200);
  });
}
