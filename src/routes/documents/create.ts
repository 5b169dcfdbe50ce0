import { defineRoute } from "../../http/route";
import { z } from "@hono/zod-openapi";
import { EmojiSchema, errorResponses, ignored, IconSchema, IdSchemaBody, jsonBody, NameSchema, okData, security, type Router } from "../../openapi";
import { requireDocument, requireProject } from "../../auth/access";
import { checkParentFolder, createDocument } from "../../services/documents/mutations";
import { documentDto } from "../../services/documents/serialize";
import { DocumentSchema } from "../../schemas/core";
import { emitAfterResponse, documentCreatedEvent } from "../../services/automations/events";

const route = defineRoute({
  operationId: "createDocument",
  method: "post",
  path: "/document",
  tags: ["Documents"],
  summary: "Create a folder or rich-text document",
  description: "At the project root this needs workspace owner/admin/editor; inside a folder, edit access to that folder. The creator becomes collaborator `owner`.",
  security,
  request: jsonBody(
    z.strictObject({
      projectId: IdSchemaBody,
      parentId: IdSchemaBody.nullable().optional(),
      name: NameSchema,
      type: z.enum(["FOLDER", "DOCUMENT"]),
      description: z.string().max(10_000).optional(),
      reference: z.string().max(1000).optional(),
      order: z.number().int().min(0).max(1_000_000_000).optional(),
      icon: IconSchema.nullable().optional(),
      emoji: EmojiSchema.nullable().optional(),
      ...ignored("_id", "userId", "workspaceId", "createdAt", "updatedAt", "isPublished", "publishedSettings", "external", "collaborators", "isDeleted"),
    }),
  ),
  responses: { ...okData(DocumentSchema), ...errorResponses() },
});

export function registerCreateDocument(app: Router) {
  app.openapi(route, async (c) => {
    const db = c.get("db");
    const user = c.get("user");
    const body = c.req.valid("json");
    const parentId = body.parentId ?? null;
    const { project } = await requireProject(db, user, body.projectId, parentId ? "read" : "write");
    if (parentId) {
      const parent = await requireDocument(db, user, parentId, "edit");
      await checkParentFolder(db, project.id, parent.doc, parentId);
    }
    const row = await createDocument(db, user._id, project, { ...body, parentId });
    emitAfterResponse((p) => c.executionCtx.waitUntil(p), c.env, [documentCreatedEvent(row)]);
    return c.json({ data: documentDto(row, [{ userId: user._id, role: "owner" }]) }, 200);
  });
}
