import { z } from "@hono/zod-openapi";
import { ctxOf, defineRoute } from "../../http/route";
import { jsonTextWithEtag } from "../../http/conditional";
import { errorResponses, okData, pathId, type Router } from "../../openapi";
import { getContent } from "../../services/content/content";
import { DocumentContentSchema } from "../../schemas/content";

const route = defineRoute({
  operationId: "getContent",
  auth: "batched",
  method: "get",
  path: "/document/{documentId}/content",
  tags: ["Content"],
  summary: "Read a document's block content",
  description:
    "Read access to the document. A document never written answers version 0 and blocks `[]`. " +
    "Carries a strong ETag (one per version); If-None-Match answers 304, and `If-Match` on PUT means the same as `baseVersion`.",
  request: { params: z.object({ documentId: pathId("documentId") }) },
  responses: {
    ...okData(DocumentContentSchema),
    ...errorResponses(),
    304: { description: "Not modified (If-None-Match matched the ETag)" },
  },
});

export function registerGetContent(app: Router) {
  app.openapi(route, async (c) => {
    const { documentId } = c.req.valid("param");
    const content = await getContent(ctxOf(c), { documentId });
    return jsonTextWithEtag(c, content.etag, async () => {
      const { version, etag, blocksJson } = await content.blocks();
      // The stored JSON text is spliced in as is: no parse/serialize of large block trees, and a read returns
      // exactly the bytes that were written.
      return {
        etag,
        text: `{"data":{"documentId":${JSON.stringify(documentId)},"version":${version},"blocks":${blocksJson}}}`,
      };
    }) as never;
  });
}
