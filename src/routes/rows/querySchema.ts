/** Members of a row query (docs/api-guide.md › Querying rows), as GET …/rows takes them and as POST …/query does. */
import { z } from "@hono/zod-openapi";
import { DEFAULT_PAGE_SIZE, MAX_PAGE_SIZE } from "../../services/tables/rowReads";
import { validation } from "../../errors";
import type { RowQuery } from "../../services/tables/query/query";

export const MAX_QUERY_CURSOR = 20_000;

const FilterDoc =
  "`{ and | or: [node, …] }`, a node being a group or `{ columnId, op, value? }` (depth ≤ 5, ≤ 50 conditions); operators per column type in docs/api-guide.md › Querying rows. A bad filter is 422 naming the member's path (`filter.and.1.value`).";
const SortDoc = "`[{ columnId, direction: asc | desc }]` (≤ 5 keys); empty values last, ties in row order.";

export const FilterSchema = z.unknown().openapi("RowFilter", { description: FilterDoc, example: { and: [] } });
const SortSchema = z
  .array(z.object({ columnId: z.string(), direction: z.enum(["asc", "desc"]).optional() }))
  .openapi("RowSort", { description: SortDoc });

const limit = z.coerce.number().int().min(1).max(MAX_PAGE_SIZE).default(DEFAULT_PAGE_SIZE);

/** POST /table/{tableId}/query's body. */
export const RowQueryBody = z
  .strictObject({
    filter: FilterSchema.optional(),
    sort: SortSchema.optional(),
    fields: z.array(z.string().min(1).max(64)).max(1000).optional(),
    search: z.string().min(1).max(500).optional(),
    expand: z.array(z.string().min(1).max(130)).max(20).optional(),
    cellFormat: z.enum(["json", "string"]).optional(),
    limit: limit.optional(),
    cursor: z.string().min(1).max(MAX_QUERY_CURSOR).optional(),
  })
  .openapi("RowQuery");

const param = (name: string, description: string) => ({ param: { name, in: "query" as const }, description });
const list = (s: string | undefined) => (s === undefined ? undefined : s.split(",").filter((x) => x.length > 0));

/** GET /table/{tableId}/rows's query string. */
export const RowQueryParams = z.object({
  limit: limit.openapi({ param: { name: "limit", in: "query" }, example: 100 }),
  cursor: z.string().min(1).max(MAX_QUERY_CURSOR).optional().openapi(param("cursor", "the previous page's nextCursor")),
  filter: z
    .string()
    .min(1)
    .max(100_000)
    .optional()
    .openapi(param("filter", `JSON: ${FilterDoc}`)),
  sort: z
    .string()
    .min(1)
    .max(10_000)
    .optional()
    .openapi(param("sort", `JSON: ${SortDoc}`)),
  fields: z.string().max(20_000).optional().openapi(param("fields", "column ids to return, comma-separated")),
  search: z.string().min(1).max(500).optional().openapi(param("search", "words, as GET /search, within the table")),
  expand: z.string().max(3_000).optional().openapi(param("expand", "oneMany column ids (a or a.b), comma-separated")),
  cellFormat: z.enum(["json", "string"]).optional().openapi(param("cellFormat", "json (default) or string")),
});

function parseJson(text: string | undefined, path: string): unknown {
  if (text === undefined) return undefined;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    throw validation(`${path} is not JSON`, [{ path, message: "not valid JSON" }]);
  }
}

export function queryFromParams(q: z.infer<typeof RowQueryParams>): RowQuery {
  return {
    limit: q.limit,
    cursor: q.cursor,
    filter: parseJson(q.filter, "filter"),
    sort: parseJson(q.sort, "sort"),
    fields: list(q.fields),
    search: q.search,
    expand: list(q.expand),
    cellFormat: q.cellFormat,
  };
}

export function queryFromBody(b: z.infer<typeof RowQueryBody>): RowQuery {
  return { ...b, limit: b.limit ?? DEFAULT_PAGE_SIZE };
}
