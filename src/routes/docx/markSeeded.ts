import { defineRoute } from "../../http/route";
import { z } from "@hono/zod-openapi";
import { onlyErrorResponses, okData, pathId, security, type Router } from "../../openapi";
import { requireDocument } from "../../auth/access";
import { markSeeded } from "../../services/docx/store";

const route = defineRoute({
  operationId: "markDocxSeeded",
  method: "post",
  path: "/document/docx/{documentId}/mark-seeded",
  tags: ["DOCX"],
  summary: "E18. Mark a DOCX as seeded",
  description:
    "Read access. Sets `external.seededAt` once per stored DOCX version (a new version clears it); called again, answers the value already set. Not an EXTERNAL DOCX document: 409.",
  security,
  request: { params: z.object({ documentId: pathId("documentId") }) },
  responses: {
    ...okData(z.object({ seededAt: z.number() })),
    ...onlyErrorResponses("ValidationError", "UnauthorizedError", "NotFoundError", "ConflictError", "RateLimitedError", "InternalError"),
  },
});

export function registerMarkDocxSeeded(app: Router) {
  app.openapi(route, async (c) => {
    const db = c.get("db");
    const { documentId } = c.req.valid("param");
    const { doc } = await requireDocument(db, c.get("user"), documentId, "read");
    const seededAt = await markSeeded(db, doc);
    return c.json({ data: { seededAt } }, 200);
  });
}
