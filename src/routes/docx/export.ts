import { defineRoute } from "../../http/route";
import { z } from "@hono/zod-openapi";
import { onlyErrorResponses, pathId, security, type Router } from "../../openapi";
import { requireDocument } from "../../auth/access";
import { notFound } from "../../errors";
import { attachmentDisposition, DOCX_MEDIA_TYPE, requireDocx, requireNewestDocx } from "../../services/docx/store";
import { binaryResponse } from "../../schemas/content";

const route = defineRoute({
  operationId: "exportDocx",
  method: "get",
  path: "/document/docx/{documentId}/export",
  tags: ["DOCX"],
  summary: "E21. Stream the latest DOCX blob",
  description:
    "Read access. Streams the newest stored version straight from storage with `Content-Disposition: attachment` " +
    "(an ASCII `filename` and an RFC 5987 `filename*`, from the document name plus `.docx`). Missing or unreadable: 404; not an EXTERNAL DOCX: 409.",
  security,
  request: { params: z.object({ documentId: pathId("documentId") }) },
  responses: {
    200: binaryResponse(DOCX_MEDIA_TYPE, "The DOCX bytes", {
      "Content-Disposition": { description: "attachment; filename=…; filename*=UTF-8''…", schema: { type: "string" } },
      "Content-Length": { description: "Size in bytes", schema: { type: "integer" } },
      ETag: { description: "Entity tag of this version", schema: { type: "string" } },
    }),
    304: { description: "The newest version still has the ETag given in If-None-Match" },
    ...onlyErrorResponses("ValidationError", "UnauthorizedError", "NotFoundError", "ConflictError", "RateLimitedError", "InternalError"),
  },
});

export function registerExportDocx(app: Router) {
  app.openapi(route, async (c) => {
    const db = c.get("db");
    const { documentId } = c.req.valid("param");
    const { doc } = await requireDocument(db, c.get("user"), documentId, "read");
    requireDocx(doc);
    const version = await requireNewestDocx(db, documentId);
    const common = { ETag: version.etag, "Cache-Control": "private, no-cache" };
    if (c.req.header("if-none-match")?.split(",").some((t) => t.trim() === version.etag)) {
      return new Response(null, { status: 304, headers: common });
    }
    const obj = await c.env.BLOBS.get(version.r2Key);
    if (!obj) throw notFound("DOCX blob");
    return new Response(obj.body, {
      status: 200,
      headers: {
        ...common,
        "Content-Type": DOCX_MEDIA_TYPE,
        "Content-Length": String(obj.size),
        ETag: obj.httpEtag,
        "Content-Disposition": attachmentDisposition(doc.name),
      },
    });
  });
}
