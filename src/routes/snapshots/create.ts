import { defineRoute } from "../../http/route";
import { z } from "@hono/zod-openapi";
import { errorResponses, IdSchemaBody, ignored, jsonBody, NameSchema, okData, security, type Router } from "../../openapi";
import { requireDocument } from "../../auth/access";
import { snapshotDto, takeSnapshot } from "../../services/content/snapshots";
import { SnapshotSchema } from "../../schemas/content";

const route = defineRoute({
  operationId: "createSnapshot",
  method: "post",
  path: "/snapshot",
  tags: ["Snapshots"],
  summary: "Freeze a document's current content (and DOCX version)",
  description: "Edit access to the document.",
  security,
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
    const db = c.get("db");
    const user = c.get("user");
    const body = c.req.valid("json");
    await requireDocument(db, user, body.documentId, "edit");
    const row = await takeSnapshot(db, { ...body, userId: user._id });
    return c.json({ data: snapshotDto(row) }, 200);
  });
}
