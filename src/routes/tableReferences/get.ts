import { defineRoute, ctxOf } from "../../http/route";
import { z } from "@hono/zod-openapi";
import { errorResponses, okData, pathId, type Router } from "../../openapi";
import { getTableReference } from "../../services/references/tableReferences";
import { TableReferenceSchema } from "../../schemas/tables";

const route = defineRoute({
  operationId: "getTableReference",
  auth: "batched",
  method: "get",
  path: "/table/reference/{referenceId}",
  // A reference's `_id` may be the client's and name no shard: its service asks every shard.
  shard: "service",
  tags: ["References"],
  summary: "E1. Retrieve a table reference",
  description:
    "Needs read permission on the reference's document (else 404, as for a missing or deleted reference). " +
    "403 when the caller can read the document but not the referenced table's project. `columnName`/`tableName` are the current names.",
  request: { params: z.object({ referenceId: pathId("referenceId") }) },
  responses: { ...okData(TableReferenceSchema), ...errorResponses() },
});

export function registerGetTableReference(app: Router) {
  app.openapi(route, async (c) =>
    c.json({ data: await getTableReference(ctxOf(c), { id: c.req.valid("param").referenceId }) }, 200),
  );
}
