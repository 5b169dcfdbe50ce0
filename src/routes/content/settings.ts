import { defineRoute } from "../../http/route";
import { z } from "@hono/zod-openapi";
import { errorResponses, jsonBody, okData, pathId, security, type Router } from "../../openapi";
import { requireDocument } from "../../auth/access";
import { readSettings, writeSettings } from "../../services/content/store";
import { DocumentSettingsSchema } from "../../schemas/content";

const params = z.object({ documentId: pathId("documentId") });
const SettingValue = z.string().max(200).nullable().optional().openapi({ description: "null or an empty string clears it" });

const getRoute = defineRoute({
  operationId: "getDocumentSettings",
  method: "get",
  path: "/document/{documentId}/settings",
  tags: ["Content"],
  summary: "Read a document's export settings",
  description: "Read access to the document. Unset members are empty strings.",
  security,
  request: { params },
  responses: { ...okData(DocumentSettingsSchema), ...errorResponses() },
});

const putRoute = defineRoute({
  operationId: "updateDocumentSettings",
  method: "put",
  path: "/document/{documentId}/settings",
  tags: ["Content"],
  summary: "Set a document's export settings (used by E5)",
  description: "Edit access to the document. Members left out keep their value.",
  security,
  request: {
    params,
    ...jsonBody(z.strictObject({ listTemplateId: SettingValue, importedTermId: SettingValue })),
  },
  responses: { ...okData(DocumentSettingsSchema), ...errorResponses() },
});

export function registerDocumentSettings(app: Router) {
  app.openapi(getRoute, async (c) => {
    const db = c.get("db");
    const { documentId } = c.req.valid("param");
    await requireDocument(db, c.get("user"), documentId, "read");
    const settings = (await readSettings(db, [documentId])).get(documentId)!;
    return c.json({ data: settings }, 200);
  });
  app.openapi(putRoute, async (c) => {
    const db = c.get("db");
    const { documentId } = c.req.valid("param");
    const body = c.req.valid("json");
    await requireDocument(db, c.get("user"), documentId, "edit");
    const settings = await writeSettings(db, documentId, {
      ...(body.listTemplateId !== undefined && { listTemplateId: body.listTemplateId ?? "" }),
      ...(body.importedTermId !== undefined && { importedTermId: body.importedTermId ?? "" }),
    });
    return c.json({ data: settings }, 200);
  });
}
