import { defineRoute } from "../../http/route";
import { z } from "@hono/zod-openapi";
import { eq } from "drizzle-orm";
import { EmojiSchema, errorResponses, IconSchema, IdSchemaBody, ignored, jsonBody, NameSchema, okData, pathId, security, type Router } from "../../openapi";
import { documents } from "../../db/schema";
import { requireDocument, requireProject } from "../../auth/access";
import { now } from "../../lib/ids";
import { checkMove, checkParentFolder } from "../../services/documents/mutations";
import { documentsWithCollaborators } from "../../services/documents/serialize";
import { DocumentSchema } from "../../schemas/core";

const route = defineRoute({
  operationId: "updateDocument",
  method: "patch",
  path: "/document/{documentId}",
  tags: ["Documents"],
  summary: "Update a document; `parentId` moves it (into its own subtree: 409)",
  description: "Needs edit access to the document; a move also needs edit access to the destination folder (or, to the root, the workspace editor role).",
  security,
  request: {
    params: z.object({ documentId: pathId("documentId") }),
    ...jsonBody(
      z.strictObject({
        name: NameSchema.optional(),
        description: z.string().max(10_000).optional(),
        reference: z.string().max(1000).optional(),
        order: z.number().int().min(0).max(1_000_000_000).optional(),
        parentId: IdSchemaBody.nullable().optional(),
        icon: IconSchema.nullable().optional(),
        emoji: EmojiSchema.nullable().optional(),
        ...ignored("_id", "projectId", "userId", "workspaceId", "type", "createdAt", "updatedAt", "isPublished", "publishedSettings", "external", "collaborators", "isDeleted"),
      }),
    ),
  },
  responses: { ...okData(DocumentSchema), ...errorResponses("ConflictError") },
});

export function registerUpdateDocument(app: Router) {
  app.openapi(route, async (c) => {
    const db = c.get("db");
    const user = c.get("user");
    const { documentId } = c.req.valid("param");
    const body = c.req.valid("json");
    const { doc } = await requireDocument(db, user, documentId, "edit");
    const moving = body.parentId !== undefined && body.parentId !== doc.parentId;
    if (moving) {
      if (body.parentId) {
        const parent = await requireDocument(db, user, body.parentId, "edit");
        await checkParentFolder(db, doc.projectId, parent.doc, body.parentId);
        await checkMove(db, doc, body.parentId);
      } else {
        await requireProject(db, user, doc.projectId, "write");
      }
    }
    const [row] = await db
      .update(documents)
      .set({
        ...(body.name !== undefined && { name: body.name }),
        ...(body.description !== undefined && { description: body.description }),
        ...(body.reference !== undefined && { reference: body.reference }),
        ...(body.order !== undefined && { order: body.order }),
        ...(moving && { parentId: body.parentId ?? null }),
        ...(body.icon !== undefined && { icon: body.icon }),
        ...(body.emoji !== undefined && { emoji: body.emoji }),
        updatedAt: now(),
      })
      .where(eq(documents.id, documentId))
      .returning();
    const [dto] = await documentsWithCollaborators(db, [row!]);
    return c.json({ data: dto! }, 200);
  });
}
