import { z } from "@hono/zod-openapi";
import { ctxOf, defineRoute } from "../../http/route";
import { requireAdminToken } from "../../http/admin";
import { errorResponses, jsonBody, okData, type Router } from "../../openapi";
import { reindexSearch } from "../../services/search/reindex";

const route = defineRoute({
  operationId: "reindexSearch",
  // No user token: the deployment's ADMIN_TOKEN (as POST /admin/users).
  auth: "public",
  use: [requireAdminToken],
  // One read batch (on the first call with the SQL rebuild of titles and rows) and one write batch; a keyed call
  // adds its Idempotency-Key claim and the stored response.
  roundTrips: 4,
  method: "post",
  path: "/admin/search/reindex",
  shard: "service",
  tags: ["Search"],
  summary: "Rebuild the search index, a page of documents per call (deployment admin token)",
  description:
    "The search index is derived data. Call without `cursor` to start (titles and rows are rebuilt at once), then again with each " +
    "`nextCursor` until it is null; the last call rebuilds the full-text index. `npm run search:reindex` does this.",
  security: [{ bearer: [] }],
  request: jsonBody(z.strictObject({ cursor: z.string().min(1).max(64).nullable().default(null) })),
  responses: {
    ...okData(
      z.object({ documents: z.number().int(), nextCursor: z.string().nullable() }).openapi("SearchReindexPage"),
    ),
    ...errorResponses(),
  },
});

export function registerReindexSearch(app: Router) {
  app.openapi(route, async (c) => c.json({ data: await reindexSearch(ctxOf(c), c.req.valid("json")) }, 200));
}
