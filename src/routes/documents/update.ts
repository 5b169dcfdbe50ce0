import { z } from "@hono/zod-openapi";
import { ctxOf, defineRoute } from "../../http/route";
import { expectedVersionOf, withEtag } from "../../http/conditional";
import {
  EmojiSchema,
  errorResponses,
  IconSchema,
  IdSchemaBody,
  ignored,
  jsonBody,
  NameSchema,
  okData,
  pathId,
  type Router,
} from "../../openapi";
import { updateDocument } from "../../services/documents/update";
import { DocumentSchema } from "../../schemas/core";

const route = defineRoute({
  operationId: "updateDocument",
  auth: "batched",
  method: "patch",
  path: "/document/{documentId}",
  tags: ["Documents"],
  summary: "Update a document; `parentId` moves it (into its own subtree: 409)",
  description:
    "Needs edit access to the document; a move also needs edit access to the destination folder (or, to the root, the workspace editor role). " +
    "`If-Match` with the document's ETag (E10) makes the update conditional: 412 and nothing changed when it no longer matches. The response carries the new ETag.",
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
        ...ignored(
          "_id",
          "projectId",
          "userId",
          "workspaceId",
          "type",
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
  },
  responses: { ...okData(DocumentSchema), ...errorResponses("ConflictError", "PreconditionFailedError") },
});

export function registerUpdateDocument(app: Router) {
  app.openapi(route, async (c) => {
    const body = {
      data: await updateDocument(ctxOf(c), {
        documentId: c.req.valid("param").documentId,
        patch: c.req.valid("json"),
        expected: expectedVersionOf(c),
      }),
    };
    await withEtag(c, body);
    return c.json(body, 200);
  });
}
