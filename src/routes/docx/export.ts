import { z } from "@hono/zod-openapi";
import { ctxOf, defineRoute } from "../../http/route";
import { r2ConditionsOf } from "../../http/conditional";
import { attachmentDisposition } from "../../http/disposition";
import { onlyErrorResponses, pathId, type Router } from "../../openapi";
import { exportDocx } from "../../services/docx/docx";
import { DOCX_MEDIA_TYPE } from "../../services/docx/store";
import { binaryResponse } from "../../schemas/content";

const route = defineRoute({
  operationId: "exportDocx",
  auth: "batched",
  method: "get",
  path: "/document/docx/{documentId}/export",
  tags: ["DOCX"],
  summary: "E21. Stream the latest DOCX blob",
  description:
    "Read access. Streams the newest stored version straight from storage with `Content-Disposition: attachment` " +
    "(an ASCII `filename` and an RFC 5987 `filename*`, from the document name plus `.docx`). Missing or unreadable: 404; not an EXTERNAL DOCX: 409; " +
    "a version stored before uploads were checked whose ZIP data disagrees with its headers (it inflates to more or fewer bytes than declared): 422.",
  request: { params: z.object({ documentId: pathId("documentId") }) },
  responses: {
    200: binaryResponse(DOCX_MEDIA_TYPE, "The DOCX bytes", {
      "Content-Disposition": { description: "attachment; filename=…; filename*=UTF-8''…", schema: { type: "string" } },
      "Content-Length": { description: "Size in bytes", schema: { type: "integer" } },
      ETag: { description: "Entity tag of this version", schema: { type: "string" } },
    }),
    304: { description: "The newest version still has the ETag given in If-None-Match" },
    ...onlyErrorResponses(
      "ValidationError",
      "UnauthorizedError",
      "NotFoundError",
      "ConflictError",
      "UnprocessableEntityError",
      "RateLimitedError",
      "InternalError",
    ),
  },
});

export function registerExportDocx(app: Router) {
  app.openapi(route, async (c) => {
    const { documentId } = c.req.valid("param");
    const docx = await exportDocx(ctxOf(c), { documentId, onlyIf: r2ConditionsOf(c) });
    const common = { ETag: docx.etag, "Cache-Control": "private, no-cache" };
    if (docx.notModified) return new Response(null, { status: 304, headers: common });
    return new Response(docx.body, {
      status: 200,
      headers: {
        ...common,
        "Content-Type": DOCX_MEDIA_TYPE,
        "Content-Length": String(docx.size),
        "Content-Disposition": attachmentDisposition(docx.documentName, ".docx"),
      },
    });
  });
}
