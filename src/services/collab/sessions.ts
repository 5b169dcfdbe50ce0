/**
 * Who may open a document's collaborative room, and as what (docs/api-guide.md › Automations, published portals, collaborative editing): read access connects, edit access may
 * change the document. Browsers, which cannot set an Authorization header on a WebSocket, use a single-use ticket
 * valid 60 s, stored hashed in the document's room (one synchronous delete-returning statement redeems it, so of
 * concurrent redemptions exactly one wins).
 */
import {
  assembleDocumentsAccess,
  checkDocumentAccess,
  documentsAccessStatements,
  type UserRef,
} from "../../auth/access";
import { ApiError } from "../../errors";
import { read, type ServiceContext } from "../context";
import type { CollabSession } from "../../durable/room/opening";
import { roomOf } from "./rooms";

export const TICKET_TTL_MS = 60_000;

/** The session the room is told about: 404 when the caller cannot read the document (no access looks like absence). */
export async function collabSession(
  ctx: ServiceContext,
  input: { documentId: string; user: UserRef },
): Promise<CollabSession> {
  const { documentId, user } = input;
  const [docs, wsRoles, docRoles] = await read(ctx, documentsAccessStatements(ctx.db, user, [documentId]));
  const access = checkDocumentAccess(assembleDocumentsAccess([docs, wsRoles, docRoles]).get(documentId), "read");
  const doc = access.doc;
  const isDocx = doc.type === "EXTERNAL" && doc.external?.type === "DOCX";
  return {
    documentId,
    userId: typeof user === "string" ? user : ctx.user.id,
    canEdit: access.canEdit,
    kind: isDocx ? "DOCX" : "DOCUMENT",
    seededAt: isDocx && typeof doc.external?.seededAt === "number" ? doc.external.seededAt : null,
    docxResourceId: isDocx && typeof doc.external?.resourceId === "string" ? doc.external.resourceId : null,
  };
}

/** A ticket for the caller (read access needed). */
export async function issueCollabTicket(
  ctx: ServiceContext,
  { documentId }: { documentId: string },
): Promise<{ ticket: string; expiresAt: number }> {
  const session = await collabSession(ctx, { documentId, user: ctx.user.ref });
  return roomOf(ctx.env, documentId).issueTicket(session.userId, TICKET_TTL_MS);
}

const badTicket = () =>
  new ApiError("UnauthorizedError", "The collaboration ticket is unknown, expired or already used");

/** The user a ticket belongs to, using it up; 401 when it is unknown, used or expired (or was issued for another document). */
export async function redeemCollabTicket(
  ctx: ServiceContext,
  input: { documentId: string; ticket: string },
): Promise<string> {
  const userId = await roomOf(ctx.env, input.documentId).redeemTicket(input.ticket);
  if (!userId) throw badTicket();
  return userId;
}

/** 401 unless the ticket would be accepted; it stays usable (for requests that fail later without connecting). */
export async function checkCollabTicket(
  ctx: ServiceContext,
  input: { documentId: string; ticket: string },
): Promise<void> {
  if (!(await roomOf(ctx.env, input.documentId).ticketValid(input.ticket))) throw badTicket();
}
