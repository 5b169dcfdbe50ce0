import { defineRoute } from "../../http/route";
import { z } from "@hono/zod-openapi";
import { errorResponses, ignored, jsonBody, okData, pathId, security, type Router } from "../../openapi";
import { requireTable } from "../../auth/access";
import { notFound } from "../../errors";
import { findLiveRow } from "../../services/tables/rows";
import { findLiveColumn } from "../../services/tables/columns";
import { upsertCell } from "../../services/tables/cells";
import { cellDto } from "../../services/tables/serialize";
import { CellSchema } from "../../schemas/tables";
import { emitAfterResponse, rowEvent } from "../../services/automations/events";

const route = defineRoute({
  operationId: "upsertCell",
  method: "put",
  path: "/table/row/{rowId}/cell/{columnId}",
  tags: ["Cells"],
  summary: "Write one cell (null clears it)",
  description:
    "Values by column type: text-like → string; number → finite number; checkbox → boolean; date → ms number; select → an item id; " +
    "multiSelect → array of item ids; url → absolute http(s) URL; email → e-mail address. A wrong value is 400; a computed cell " +
    "(oneMany, formula) is 409. The value is checked after access, since what is valid depends on the column. " +
    "Formula cells of the row are recomputed in the same request.",
  security,
  request: {
    params: z.object({ rowId: pathId("rowId"), columnId: pathId("columnId") }),
    ...jsonBody(
      z.strictObject({
        data: z.unknown().refine((v) => v !== undefined, { message: "data is required (null clears the cell)" }).openapi({ description: "The typed value" }),
        ...ignored("_id", "tableId", "rowId", "columnId", "workspaceId", "originId", "isIdentifier", "createdAt", "updatedAt", "isDeleted"),
      }),
    ),
  },
  responses: { ...okData(CellSchema), ...errorResponses("ConflictError") },
});

export function registerUpsertCell(app: Router) {
  app.openapi(route, async (c) => {
    const db = c.get("db");
    const { rowId, columnId } = c.req.valid("param");
    const row = await findLiveRow(db, rowId);
    if (!row) throw notFound("Row");
    const { table } = await requireTable(db, c.get("user"), row.tableId, "write", { as: "Row" });
    const column = await findLiveColumn(db, columnId);
    if (column.tableId !== table.id) throw notFound("Column");
    const cell = await upsertCell(db, c.env, table, row, column, c.req.valid("json").data);
    emitAfterResponse((p) => c.executionCtx.waitUntil(p), c.env, [rowEvent("row.updated", table, row.id, [column.id])]);
    return c.json({ data: cellDto(cell) }, 200);
  });
}
