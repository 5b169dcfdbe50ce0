import { defineRoute } from "../../http/route";
import { z } from "@hono/zod-openapi";
import { forbidden } from "../../errors";
import { EmailSchema, errorResponses, IdSchemaBody, jsonBody, okData, security, type Router } from "../../openapi";
import { requireDocument } from "../../auth/access";
import { findUserByEmail } from "../../services/identity/users";
import { inviteToDocument } from "../../services/documents/invitations";

const route = defineRoute({
  operationId: "inviteUser",
  method: "post",
  path: "/document/invite-user",
  tags: ["Documents"],
  summary: "E7. Invite a user to a document",
  description:
    "Needs edit access (granting `owner` needs the owner role). Covers the document and, for a folder, every live document below it. A registered email is granted at once; otherwise the invitation waits for that email to register.",
  security,
  request: jsonBody(
    z.strictObject({ email: EmailSchema, documentId: IdSchemaBody, role: z.enum(["owner", "editor", "viewer"]).default("viewer") }),
  ),
  responses: {
    ...okData(z.object({ invitationsSent: z.number(), documentsInvited: z.number(), usersInvited: z.number() }).openapi("InvitationResult")),
    ...errorResponses(),
  },
});

export function registerInviteUser(app: Router) {
  app.openapi(route, async (c) => {
    const db = c.get("db");
    const user = c.get("user");
    const { email, documentId, role } = c.req.valid("json");
    const access = await requireDocument(db, user, documentId, "edit");
    if (role === "owner" && !access.isOwner) throw forbidden("Only an owner can grant the owner role");
    const existing = await findUserByEmail(db, email);
    const result = await inviteToDocument(db, {
      inviterId: user._id,
      inviterName: user.name,
      documentId,
      documentName: access.doc.name,
      email,
      role,
      existingUserId: existing?.id ?? null,
    });
    return c.json({ data: result }, 200);
  });
}
