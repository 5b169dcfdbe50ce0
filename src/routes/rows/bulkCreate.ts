import { defineRoute } from "../../http/route";
import { z } from "@hono/zod-openapi";
import { errorResponses, jsonBody, okData, pathId, security, type Router } from "../../openapi";
import { requireTable } from "../../auth/access";
import { createRows, MAX_BULK_ROWS } from "../../services/tables/rows";
import { rowDto } from "../../services/tables/serialize";
import { RowSchema } from "../../schemas/tables";
import { RowInput } from "./schema";
import { emitAfterResponse, rowEvent } from "../../services/automations/events";

const route = defineRoute({
  operationId: "bulkCreateRows",
  method: "post",
  path: "/table/{tableId}/rows",
  tags: ["Rows"],
  summary: "Add 1–1000 rows, all or nothing",
  description:
    "Every value of every row is checked first (400 listing the problems with paths `rows.<i>.cells.<columnId>`; a computed column is 409); " +
    "then all rows and cells are written in one atomic D1 batch. The response lists the new rows in request order, each with `cells`: " +
    "the values this call stored, by column id (empty and computed columns are absent; GET …/rows returns every column).",
  security,
  request: {
    params: z.object({ tableId: pathId("tableId") }),
    ...jsonBody(z.strictObject({ rows: z.array(RowInput).min(1).max(MAX_BULK_ROWS) })),
  },
  responses: {
    ...okData(z.object({ rows: z.array(RowSchema.extend({ cells: z.record(z.string(), z.unknown()) }).openapi("CreatedRow")) })),
    ...errorResponses("ConflictError", "PayloadTooLargeError"),
  },
});

export function registerBulkCreateRows(app: Router) {
  app.openapi(route, async (c) => {
    const db = c.get("db");
    const user = c.get("user");
    const body = c.req.valid("json");
    const { table } = await requireTable(db, user, c.req.valid("param").tableId, "write");
    const { rows, written } = await createRows(db, c.env, table, user._id, body.rows.map((r) => r.cells));
    emitAfterResponse((p) => c.executionCtx.waitUntil(p), c.env, rows.map((r, i) => rowEvent("row.created", table, r.id, Object.keys(written[i] ?? {}))));
    return c.json({ data: { rows: rows.map((r, i) => ({ ...rowDto(r), cells: written[i]! })) } }, 200);
  });
}
