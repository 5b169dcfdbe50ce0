import { z } from "@hono/zod-openapi";
import { ctxOf, defineRoute } from "../../http/route";
import { errorResponses, IdSchemaBody, ignored, jsonBody, NameSchema, okData, type Router } from "../../openapi";
import { createSnapshot } from "../../services/content/snapshots";
import { SnapshotSchema } from "../../schemas/content";

const route = defineRoute({
  operationId: "createSnapshot",
  method: "post",
  path: "/snapshot",
  shard: { body: "documentId" },
  tags: ["Snapshots"],
  summary: "Freeze a document's current content (and DOCX version)",
  description: "Edit access to the document.",
  request: jsonBody(
    z.strictObject({
      documentId: IdSchemaBody,
      name: NameSchema,
      description: z.string().max(10_000).optional(),
      ...ignored("_id", "contentVersion", "docxVersion", "userId", "createdAt", "updatedAt", "blocks"),
    }),
  ),
  responses: { ...okData(SnapshotSchema), ...errorResponses() },
});

export function registerCreateSnapshot(app: Router) {
  app.openapi(route, async (c) => {
    const { documentId, name, description } = c.req.valid("json");
    return c.json({ data: await createSnapshot(ctxOf(c), { documentId, name, description }) }, 200);
  });
}
