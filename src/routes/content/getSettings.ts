import { z } from "@hono/zod-openapi";
import { ctxOf, defineRoute } from "../../http/route";
import { errorResponses, okData, pathId, type Router } from "../../openapi";
import { getDocumentSettings } from "../../services/content/content";
import { DocumentSettingsSchema } from "../../schemas/content";

const route = defineRoute({
  operationId: "getDocumentSettings",
  auth: "batched",
  method: "get",
  path: "/document/{documentId}/settings",
  tags: ["Content"],
  summary: "Read a document's export settings",
  description: "Read access to the document. Unset members are empty strings.",
  request: { params: z.object({ documentId: pathId("documentId") }) },
  responses: { ...okData(DocumentSettingsSchema), ...errorResponses() },
});

export function registerGetDocumentSettings(app: Router) {
  app.openapi(route, async (c) => {
    const { documentId } = c.req.valid("param");
    return c.json({ data: await getDocumentSettings(ctxOf(c), { documentId }) }, 200);
  });
}
