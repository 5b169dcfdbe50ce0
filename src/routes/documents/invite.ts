import { z } from "@hono/zod-openapi";
import { ctxOf, defineRoute } from "../../http/route";
import { EmailSchema, errorResponses, IdSchemaBody, jsonBody, okData, type Router } from "../../openapi";
import { inviteUser } from "../../services/documents/invitations";

const route = defineRoute({
  operationId: "inviteUser",
  // POST: eager authentication, so an Idempotency-Key is claimed in the token's batch (src/http/route.ts).
  method: "post",
  path: "/document/invite-user",
  shard: { body: "documentId" },
  tags: ["Documents"],
  summary: "E7. Invite a user to a document",
  description:
    "Needs edit access (granting `owner` needs the owner role). Covers the document and, for a folder, every live document below it. A registered email is granted at once; otherwise the invitation waits for that email to register.",
  request: jsonBody(
    z.strictObject({
      email: EmailSchema,
      documentId: IdSchemaBody,
      role: z.enum(["owner", "editor", "commenter", "viewer"]).default("viewer"),
    }),
  ),
  responses: {
    ...okData(
      z
        .object({ invitationsSent: z.number(), documentsInvited: z.number(), usersInvited: z.number() })
        .openapi("InvitationResult"),
    ),
    ...errorResponses(),
  },
});

export function registerInviteUser(app: Router) {
  app.openapi(route, async (c) => c.json({ data: await inviteUser(ctxOf(c), c.req.valid("json")) }, 200));
}
