import { z } from "@hono/zod-openapi";
import { ctxOf, defineRoute } from "../../http/route";
import {
  EmojiSchema,
  errorResponses,
  ignored,
  IconSchema,
  IdSchemaBody,
  jsonBody,
  NameSchema,
  okData,
  type Router,
} from "../../openapi";
import { createDocument } from "../../services/documents/create";
import { DocumentSchema } from "../../schemas/core";

const route = defineRoute({
  operationId: "createDocument",
  // POST: eager authentication, so an Idempotency-Key is claimed in the token's batch (src/http/route.ts).
  method: "post",
  path: "/document",
  shard: { body: "projectId" },
  tags: ["Documents"],
  summary: "Create a folder or rich-text document",
  description:
    "At the project root this needs workspace owner/admin/editor; inside a folder, edit access to that folder. The creator becomes collaborator `owner`.",
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
      ...ignored(
        "_id",
        "userId",
        "workspaceId",
        "createdAt",
        "updatedAt",
        "isPublished",
        "publishedSettings",
        "external",
        "collaborators",
        "isDeleted",
        "commentCount",
        "openCommentCount",
      ),
    }),
  ),
  responses: { ...okData(DocumentSchema), ...errorResponses() },
});

export function registerCreateDocument(app: Router) {
  app.openapi(route, async (c) => c.json({ data: await createDocument(ctxOf(c), c.req.valid("json")) }, 200));
}
