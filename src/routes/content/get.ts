import { defineRoute } from "../../http/route";
import { z } from "@hono/zod-openapi";
import { errorResponses, okData, pathId, security, type Router } from "../../openapi";
import { requireDocument } from "../../auth/access";
import { readContentJson } from "../../services/content/store";
import { DocumentContentSchema } from "../../schemas/content";

const route = defineRoute({
  operationId: "getContent",
  method: "get",
  path: "/document/{documentId}/content",
  tags: ["Content"],
  summary: "Read a document's block content",
  description: "Read access to the document. A document never written answers version 0 and blocks `[]`.",
  security,
  request: { params: z.object({ documentId: pathId("documentId") }) },
  responses: { ...okData(DocumentContentSchema), ...errorResponses() },
});

export function registerGetContent(app: Router) {
  app.openapi(route, async (c) => {
    const db = c.get("db");
    const { documentId } = c.req.valid("param");
    await requireDocument(db, c.get("user"), documentId, "read");
    const { version, blocksJson } = await readContentJson(db, c.env.BLOBS, documentId);
    // The stored JSON text is spliced in as is: no parse/serialize of large block trees, and a read returns
    // exactly the bytes that were written.
    const body = `{"data":{"documentId":${JSON.stringify(documentId)},"version":${version},"blocks":${blocksJson}}}`;
    return c.body(body, 200, { "content-type": "application/json; charset=UTF-8" }) as never;
  });
}
