import { defineRoute } from "../../http/route";
import { z } from "@hono/zod-openapi";
import { errorResponses, jsonResponse, pathId, security, type Router } from "../../openapi";
import { requireTable } from "../../auth/access";
import { DEFAULT_PAGE_SIZE, listRows, MAX_PAGE_SIZE } from "../../services/tables/rows";
import { RowWithCellValuesSchema } from "../../schemas/tables";

const route = defineRoute({
  operationId: "listRows",
  method: "get",
  path: "/table/{tableId}/rows",
  tags: ["Rows"],
  summary: "List rows with their cell values, a page at a time",
  description:
    "Rows in creation (commit) order with `cells: { [columnId]: value }` for every live column (null when empty; oneMany computed). " +
    "Pass the previous page's `nextCursor` as `cursor` for the next page; rows added meanwhile are neither skipped nor repeated. " +
    "`nextCursor` is null on the last page. A cursor this listing did not issue is 400.",
  security,
  request: {
    params: z.object({ tableId: pathId("tableId") }),
    query: z.object({
      limit: z.coerce.number().int().min(1).max(MAX_PAGE_SIZE).default(DEFAULT_PAGE_SIZE).openapi({ param: { name: "limit", in: "query" }, example: 100 }),
      cursor: z.string().min(1).max(200).optional().openapi({ param: { name: "cursor", in: "query" } }),
    }),
  },
  responses: {
    200: jsonResponse(z.object({ data: z.array(RowWithCellValuesSchema), nextCursor: z.string().nullable() }).openapi("RowsPage")),
    ...errorResponses(),
  },
});

export function registerListRows(app: Router) {
  app.openapi(route, async (c) => {
    const db = c.get("db");
    const { limit, cursor } = c.req.valid("query");
    const { table } = await requireTable(db, c.get("user"), c.req.valid("param").tableId, "read");
    const page = await listRows(db, table, { limit, cursor });
    return c.json(page, 200);
  });
}
