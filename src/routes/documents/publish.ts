import { z } from "@hono/zod-openapi";
import { ctxOf, defineRoute } from "../../http/route";
import { errorResponses, jsonBody, maxJsonBytes, okData, pathId, type Router } from "../../openapi";
import { publishDocument, unpublishDocument } from "../../services/documents/update";
import { DocumentSchema } from "../../schemas/core";

const params = z.object({ documentId: pathId("documentId") });

const publishRoute = defineRoute({
  operationId: "publishDocument",
  // POST: eager authentication, so an Idempotency-Key is claimed in the token's batch (src/http/route.ts).
  method: "post",
  path: "/document/{documentId}/publish",
  tags: ["Documents"],
  summary: "Publish a document (edit access)",
  description:
    "Marks the document published so a project portal can show it, with optional styling and domain slug. Needs edit access.",
  request: {
    params,
    ...jsonBody(
      z.strictObject({
        styling: z
          .record(z.string(), z.unknown())
          .refine(...maxJsonBytes(64 * 1024))
          .optional(),
        domainSlug: z.string().max(200).optional(),
      }),
    ),
  },
  responses: { ...okData(DocumentSchema), ...errorResponses() },
});

const unpublishRoute = defineRoute({
  operationId: "unpublishDocument",
  auth: "batched",
  method: "delete",
  path: "/document/{documentId}/publish",
  tags: ["Documents"],
  summary: "Unpublish a document (edit access)",
  description: "Marks the document unpublished: portals stop showing it. Needs edit access.",
  request: { params },
  responses: { ...okData(DocumentSchema), ...errorResponses() },
});

export function registerPublishDocument(app: Router) {
  app.openapi(publishRoute, async (c) => {
    const data = await publishDocument(ctxOf(c), {
      documentId: c.req.valid("param").documentId,
      ...c.req.valid("json"),
    });
    return c.json({ data }, 200);
  });
}

export function registerUnpublishDocument(app: Router) {
  app.openapi(unpublishRoute, async (c) =>
    c.json({ data: await unpublishDocument(ctxOf(c), c.req.valid("param")) }, 200),
  );
}
