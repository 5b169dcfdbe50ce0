import { defineRoute } from "../../http/route";
import { z } from "@hono/zod-openapi";
import { eq } from "drizzle-orm";
import { errorResponses, jsonBody, maxJsonBytes, okData, pathId, security, type Router } from "../../openapi";
import { documents } from "../../db/schema";
import { requireDocument } from "../../auth/access";
import { now } from "../../lib/ids";
import { documentsWithCollaborators } from "../../services/documents/serialize";
import { DocumentSchema } from "../../schemas/core";

const params = z.object({ documentId: pathId("documentId") });

const publishRoute = defineRoute({
  operationId: "publishDocument",
  method: "post",
  path: "/document/{documentId}/publish",
  tags: ["Documents"],
  summary: "Publish a document (edit access)",
  security,
  request: {
    params,
    ...jsonBody(z.strictObject({ styling: z.record(z.string(), z.unknown()).refine(...maxJsonBytes(64 * 1024)).optional(), domainSlug: z.string().max(200).optional() })),
  },
  responses: { ...okData(DocumentSchema), ...errorResponses() },
});

const unpublishRoute = defineRoute({
  operationId: "unpublishDocument",
  method: "delete",
  path: "/document/{documentId}/publish",
  tags: ["Documents"],
  summary: "Unpublish a document (edit access)",
  security,
  request: { params },
  responses: { ...okData(DocumentSchema), ...errorResponses() },
});

export function registerPublishDocument(app: Router) {
  app.openapi(publishRoute, async (c) => {
    const db = c.get("db");
    const user = c.get("user");
    const { documentId } = c.req.valid("param");
    const body = c.req.valid("json");
    await requireDocument(db, user, documentId, "edit");
    const t = now();
    const [row] = await db
      .update(documents)
      .set({
        isPublished: true,
        publishedSettings: { publishedById: user._id, publishedAt: t, styling: body.styling ?? {}, domainSlug: body.domainSlug ?? "" },
        updatedAt: t,
      })
      .where(eq(documents.id, documentId))
      .returning();
    const [dto] = await documentsWithCollaborators(db, [row!]);
    return c.json({ data: dto! }, 200);
  });
  app.openapi(unpublishRoute, async (c) => {
    const db = c.get("db");
    const { documentId } = c.req.valid("param");
    await requireDocument(db, c.get("user"), documentId, "edit");
    const [row] = await db
      .update(documents)
      .set({ isPublished: false, publishedSettings: null, updatedAt: now() })
      .where(eq(documents.id, documentId))
      .returning();
    const [dto] = await documentsWithCollaborators(db, [row!]);
    return c.json({ data: dto! }, 200);
  });
}
