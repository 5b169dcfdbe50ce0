import { z } from "@hono/zod-openapi";
import { ctxOf, defineRoute } from "../../http/route";
import { attachmentDisposition } from "../../http/disposition";
import { errorResponses, pathId, type Router } from "../../openapi";
import { binaryResponse } from "../../schemas/content";
import { exportCsv } from "../../services/tableCsv/export";

const route = defineRoute({
  operationId: "exportTableCsv",
  auth: "batched",
  // Access and columns with authentication, then the first page (a third with oneMany columns) before the
  // answer starts; every further 1000 rows is one more, read while the body streams.
  roundTrips: 3,
  method: "get",
  path: "/table/{tableId}/export.csv",
  tags: ["Rows"],
  summary: "Export the table's rows as CSV",
  description:
    "Every live row in creation order as RFC 4180 CSV (UTF-8, CRLF line ends), streamed. The first line names the columns " +
    "(`header=name`, the default) or gives their ids (`header=id`). Select and multiSelect cells are written as their labels " +
    "(several joined by `, `), dates as ISO 8601 (`YYYY-MM-DD` at midnight UTC), checkboxes as `true`/`false`, formula cells as " +
    "their computed values, oneMany cells as the related row ids. Text that a spreadsheet would run as a formula (starting with " +
    "`=`, `+`, `-`, `@`, a tab or a carriage return) is written with a leading `'` (CSV injection; `formulas=keep` writes it as " +
    "stored). What it writes, POST /table/{tableId}/import reads back (it takes that `'` off again).",
  request: {
    params: z.object({ tableId: pathId("tableId") }),
    query: z.object({
      header: z
        .enum(["name", "id"])
        .default("name")
        .openapi({ param: { name: "header", in: "query" } }),
      formulas: z
        .enum(["escape", "keep"])
        .default("escape")
        .openapi({
          param: { name: "formulas", in: "query" },
          description: "`escape` (the default) prefixes formula-like text with `'`; `keep` writes it as stored",
        }),
    }),
  },
  responses: {
    200: binaryResponse("text/csv", "The CSV file", {
      "Content-Disposition": { description: "attachment; filename=<table name>.csv", schema: { type: "string" } },
    }),
    ...errorResponses(),
  },
});

export function registerExportTableCsv(app: Router) {
  app.openapi(route, async (c) => {
    const query = c.req.valid("query");
    const { table, body } = await exportCsv(ctxOf(c), {
      tableId: c.req.valid("param").tableId,
      header: query.header,
      keepFormulas: query.formulas === "keep",
    });
    return new Response(body, {
      status: 200,
      headers: {
        "Content-Type": "text/csv; charset=utf-8; header=present",
        "Content-Disposition": attachmentDisposition(table.name, ".csv"),
        "Cache-Control": "private, no-store",
      },
    }) as never;
  });
}
