import { z } from "@hono/zod-openapi";
import { ctxOf, defineRoute } from "../../http/route";
import { rawUploadOf } from "../../http/upload";
import { errorResponses, okData, pathId, type Router } from "../../openapi";
import { putDocxVersion } from "../../services/docx/docx";
import { docxBody } from "../../schemas/content";
import { isDocxType } from "./create";

const route = defineRoute({
  operationId: "putDocxVersion",
  auth: "batched",
  method: "put",
  path: "/document/docx/{documentId}",
  tags: ["DOCX"],
  summary: "Store a new DOCX version of an EXTERNAL DOCX document",
  description:
    "Edit access. Earlier versions stay stored; the new one becomes the newest (E21 streams it) and `external.seededAt` is cleared. " +
    "Not an EXTERNAL DOCX document: 409. Content-Length is required (411); over 50 MiB is 413; not a DOCX (including a ZIP whose entries do not inflate to the sizes and CRC-32 their headers declare) is 415 and nothing is stored.",
  request: { params: z.object({ documentId: pathId("documentId") }), ...docxBody() },
  responses: {
    ...okData(
      z
        .object({ documentId: z.string(), version: z.number().int(), size: z.number().int(), etag: z.string() })
        .openapi("DocxVersion"),
    ),
    ...errorResponses("ConflictError", "LengthRequiredError", "PayloadTooLargeError", "UnsupportedMediaTypeError"),
  },
});

export function registerPutDocxVersion(app: Router) {
  app.openapi(route, async (c) => {
    const { documentId } = c.req.valid("param");
    return c.json({ data: await putDocxVersion(ctxOf(c), { documentId, upload: rawUploadOf(c, isDocxType) }) }, 200);
  });
}
