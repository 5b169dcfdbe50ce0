import { z } from "@hono/zod-openapi";
import { ctxOf, defineRoute } from "../../http/route";
import { onlyErrorResponses, okData, pathId, type Router } from "../../openapi";
import { markDocxSeeded } from "../../services/docx/docx";

const route = defineRoute({
  operationId: "markDocxSeeded",
  method: "post",
  path: "/document/docx/{documentId}/mark-seeded",
  tags: ["DOCX"],
  summary: "E18. Mark a DOCX as seeded",
  description:
    "Read access. Sets `external.seededAt` once per stored DOCX version (a new version clears it); called again, answers the value already set. Not an EXTERNAL DOCX document: 409.",
  request: { params: z.object({ documentId: pathId("documentId") }) },
  responses: {
    ...okData(z.object({ seededAt: z.number() })),
    ...onlyErrorResponses(
      "ValidationError",
      "UnauthorizedError",
      "NotFoundError",
      "ConflictError",
      "RateLimitedError",
      "InternalError",
    ),
  },
});

export function registerMarkDocxSeeded(app: Router) {
  app.openapi(route, async (c) => {
    const { documentId } = c.req.valid("param");
    return c.json({ data: { seededAt: await markDocxSeeded(ctxOf(c), { documentId }) } }, 200);
  });
}
