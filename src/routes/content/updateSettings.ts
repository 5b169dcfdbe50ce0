import { z } from "@hono/zod-openapi";
import { ctxOf, defineRoute } from "../../http/route";
import { errorResponses, jsonBody, okData, pathId, type Router } from "../../openapi";
import { updateDocumentSettings } from "../../services/content/content";
import { DocumentSettingsSchema } from "../../schemas/content";

const SettingValue = z
  .string()
  .max(200)
  .nullable()
  .optional()
  .openapi({ description: "null or an empty string clears it" });

const route = defineRoute({
  operationId: "updateDocumentSettings",
  auth: "batched",
  method: "put",
  path: "/document/{documentId}/settings",
  tags: ["Content"],
  summary: "Set a document's export settings (used by E5)",
  description: "Edit access to the document. Members left out keep their value.",
  request: {
    params: z.object({ documentId: pathId("documentId") }),
    ...jsonBody(z.strictObject({ listTemplateId: SettingValue, importedTermId: SettingValue })),
  },
  responses: { ...okData(DocumentSettingsSchema), ...errorResponses() },
});

export function registerUpdateDocumentSettings(app: Router) {
  app.openapi(route, async (c) => {
    const { documentId } = c.req.valid("param");
    return c.json({ data: await updateDocumentSettings(ctxOf(c), { documentId, patch: c.req.valid("json") }) }, 200);
  });
}
