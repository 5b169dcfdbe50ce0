import { defineRoute, ctxOf } from "../../http/route";
import { z } from "@hono/zod-openapi";
import { errorResponses, okData, pathId, type Router } from "../../openapi";
import { getClauseReference } from "../../services/references/clauseReferences";
import { ClauseReferenceSchema } from "../../schemas/tables";

const route = defineRoute({
  operationId: "getClauseReference",
  auth: "batched",
  method: "get",
  path: "/clause-reference/{referenceId}",
  // A reference's `_id` may be the client's and name no shard: its service asks every shard.
  shard: "service",
  tags: ["References"],
  summary: "Retrieve a clause reference (read access to its document)",
  description: "One clause reference; readable by whoever can read its document (404 otherwise).",
  request: { params: z.object({ referenceId: pathId("referenceId") }) },
  responses: { ...okData(ClauseReferenceSchema), ...errorResponses() },
});

export function registerGetClauseReference(app: Router) {
  app.openapi(route, async (c) =>
    c.json({ data: await getClauseReference(ctxOf(c), { id: c.req.valid("param").referenceId }) }, 200),
  );
}
