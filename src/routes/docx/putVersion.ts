import { defineRoute } from "../../http/route";
import { z } from "@hono/zod-openapi";
import { errorResponses, okData, pathId, security, type Router } from "../../openapi";
import { requireDocument } from "../../auth/access";
import { addDocxVersion, checkDocxBytes, DOCX_MEDIA_TYPE, putDocxBlob, requireDocx } from "../../services/docx/store";
import { checkRawContentType, declaredLength, readExactly } from "../../services/media/upload";
import { docxBody } from "../../schemas/content";

const route = defineRoute({
  operationId: "putDocxVersion",
  method: "put",
  path: "/document/docx/{documentId}",
  tags: ["DOCX"],
  summary: "Store a new DOCX version of an EXTERNAL DOCX document",
  description:
    "Edit access. Earlier versions stay stored; the new one becomes the newest (E21 streams it) and `external.seededAt` is cleared. " +
    "Not an EXTERNAL DOCX document: 409. Content-Length is required (411); over 50 MiB is 413; not a DOCX is 415.",
  security,
  request: { params: z.object({ documentId: pathId("documentId") }), ...docxBody() },
  responses: {
    ...okData(z.object({ documentId: z.string(), version: z.number().int(), size: z.number().int(), etag: z.string() }).openapi("DocxVersion")),
    ...errorResponses("ConflictError", "LengthRequiredError", "PayloadTooLargeError", "UnsupportedMediaTypeError"),
  },
});

export function registerPutDocxVersion(app: Router) {
  app.openapi(route, async (c) => {
    const db = c.get("db");
    const user = c.get("user");
    const { documentId } = c.req.valid("param");
    const { doc } = await requireDocument(db, user, documentId, "edit");
    requireDocx(doc);
    checkRawContentType(c.req.raw.headers, (t) => t === DOCX_MEDIA_TYPE || t === "application/zip");
    const length = declaredLength(c.req.raw.headers);
    const bytes = await readExactly(c.req.raw.body, length);
    checkDocxBytes(bytes);
    const blob = await putDocxBlob(c.env.BLOBS, documentId, bytes);
    try {
      const version = await addDocxVersion(db, documentId, blob, user._id);
      return c.json({ data: { documentId, version, size: blob.size, etag: blob.etag } }, 200);
    } catch (err) {
      await c.env.BLOBS.delete(blob.r2Key);
      throw err;
    }
  });
}
