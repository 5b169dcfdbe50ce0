import { defineRoute, ctxOf } from "../../http/route";
import { type Router, errorResponses, jsonResponse } from "../../openapi";
import { listChanges } from "../../services/changes/feed";
import { FeedPageSchema, FeedQuerySchema } from "./schema";

const route = defineRoute({
  operationId: "listChanges",
  auth: "batched",
  shard: "service",
  method: "get",
  path: "/changes",
  tags: ["Changes"],
  summary: "The change feed of a table, project or workspace",
  description:
    "Entries of the change log in commit order, each once when followed by `nextCursor`. Exactly one of `tableId`, `projectId`, `workspaceId` (read access to it, else 404; a project needs a workspace role). Without `cursor`, from the oldest kept entry; `cursor=latest` starts at the end. A cursor older than retention is 410 with `details[0].oldestCursor`.",
  request: { query: FeedQuerySchema },
  responses: { 200: jsonResponse(FeedPageSchema), ...errorResponses("GoneError") },
});

export function registerListChanges(app: Router) {
  app.openapi(route, async (c) => c.json(await listChanges(ctxOf(c), c.req.valid("query")), 200));
}
