import { defineRoute } from "../../http/route";
import { z } from "@hono/zod-openapi";
import { errorResponses, okData, pathId, security, type Router } from "../../openapi";
import { documentAccess } from "../../auth/access";

const route = defineRoute({
  operationId: "checkDocumentAccess",
  method: "get",
  path: "/access/document/{documentId}",
  tags: ["Documents"],
  summary: "E20. Check document access",
  description: "`true` when the caller can read the document; `false` otherwise, whether or not it exists.",
  security,
  request: { params: z.object({ documentId: pathId("documentId") }) },
  responses: { ...okData(z.boolean()), ...errorResponses() },
});

export function registerCheckDocumentAccess(app: Router) {
  app.openapi(route, async (c) => {
    const access = await documentAccess(c.get("db"), c.get("user")._id, c.req.valid("param").documentId);
    return c.json({ data: Boolean(access && access.canRead && !access.doc.isDeleted) }, 200);
  });
}
