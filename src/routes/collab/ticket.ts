import { z } from "@hono/zod-openapi";
import { ctxOf, defineRoute } from "../../http/route";
import { errorResponses, okData, pathId, type Router } from "../../openapi";
import { issueCollabTicket } from "../../services/collab/sessions";

const route = defineRoute({
  operationId: "createCollaborationTicket",
  auth: "batched",
  method: "post",
  path: "/document/{documentId}/collab/ticket",
  tags: ["Collaboration"],
  summary: "Issue a single-use ticket for the collaborative room",
  description:
    "Read access. For browsers, which cannot send Authorization on a WebSocket: connect with `GET /document/{documentId}/collab?ticket=…` " +
    "within 60 s. A ticket opens one connection, for this document only.",
  request: { params: z.object({ documentId: pathId("documentId") }) },
  responses: {
    ...okData(
      z
        .object({
          ticket: z.string().openapi({ description: "Opaque, single use" }),
          expiresAt: z.number().int().openapi({ description: "Milliseconds since the epoch; 60 s after issue" }),
        })
        .openapi("CollaborationTicket"),
    ),
    ...errorResponses(),
  },
});

export function registerCreateCollaborationTicket(app: Router) {
  app.openapi(route, async (c) => {
    const { documentId } = c.req.valid("param");
    return c.json({ data: await issueCollabTicket(ctxOf(c), { documentId }) }, 200);
  });
}
