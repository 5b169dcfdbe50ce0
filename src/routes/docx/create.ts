import { defineRoute } from "../../http/route";
import { z } from "@hono/zod-openapi";
import { errorResponses, IdSchemaBody, NameSchema, okData, security, type Router } from "../../openapi";
import { requireDocument, requireProject } from "../../auth/access";
import { checkParentFolder, prepareCreateDocument } from "../../services/documents/mutations";
import { documentDto } from "../../services/documents/serialize";
import { checkDocxBytes, DOCX_MEDIA_TYPE, docxExternal, firstDocxVersion, putDocxBlob } from "../../services/docx/store";
import { checkRawContentType, declaredLength, readExactly } from "../../services/media/upload";
import { newId } from "../../lib/ids";
import { DocumentSchema } from "../../schemas/core";
import { docxBody } from "../../schemas/content";
import { documentCreatedEvent, emitAfterResponse } from "../../services/automations/events";

const route = defineRoute({
  operationId: "createDocx",
  method: "post",
  path: "/document/docx",
  tags: ["DOCX"],
  summary: "Create an EXTERNAL DOCX document from the raw DOCX bytes",
  description:
    "Access as for `POST /document`: at the project root workspace owner/admin/editor, inside a folder edit access to it. " +
    "Content-Length is required (411); over 50 MiB is 413; a body that is not a ZIP holding `word/document.xml` is 415. " +
    "The document gets `external: { type: \"DOCX\", resourcePath: \"/document/docx/{id}/export\", resourceId: <blob id> }`.",
  security,
  request: {
    query: z.object({
      projectId: IdSchemaBody,
      name: NameSchema,
      parentId: IdSchemaBody.optional(),
    }),
    ...docxBody(),
  },
  responses: { ...okData(DocumentSchema), ...errorResponses("LengthRequiredError", "PayloadTooLargeError", "UnsupportedMediaTypeError") },
});

export function registerCreateDocx(app: Router) {
  app.openapi(route, async (c) => {
    const db = c.get("db");
    const user = c.get("user");
    const { projectId, name, parentId } = c.req.valid("query");
    const { project } = await requireProject(db, user, projectId, parentId ? "read" : "write");
    if (parentId) {
      const parent = await requireDocument(db, user, parentId, "edit");
      await checkParentFolder(db, project.id, parent.doc, parentId);
    }
    checkRawContentType(c.req.raw.headers, (t) => t === DOCX_MEDIA_TYPE || t === "application/zip");
    const length = declaredLength(c.req.raw.headers);
    const bytes = await readExactly(c.req.raw.body, length);
    checkDocxBytes(bytes);

    const documentId = newId();
    const blob = await putDocxBlob(c.env.BLOBS, documentId, bytes);
    try {
      const { row, statements } = await prepareCreateDocument(db, user._id, project, {
        id: documentId,
        parentId: parentId ?? null,
        name,
        type: "EXTERNAL",
        external: docxExternal(documentId, blob.blobId),
      });
      await db.batch([...statements, firstDocxVersion(db, documentId, blob, user._id)]);
      emitAfterResponse((p) => c.executionCtx.waitUntil(p), c.env, [documentCreatedEvent(row)]);
      return c.json({ data: documentDto(row, [{ userId: user._id, role: "owner" }]) }, 200);
    } catch (err) {
      await c.env.BLOBS.delete(blob.r2Key);
      throw err;
    }
  });
}
