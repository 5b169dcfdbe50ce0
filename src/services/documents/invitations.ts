import { and, eq, isNull, sql, type SQL } from "drizzle-orm";
import { documentCollaborators, invitations, users } from "../../db/schema";
import type { Db } from "../../env";
import {
  assembleDocumentsAccess,
  checkDocumentAccess,
  documentsAccessStatements,
  type DocumentRole,
} from "../../auth/access";
import { forbidden } from "../../errors";
import {
  assertInvitationRoom,
  pendingInvitationsStatement,
  queueSharingNotice,
  sharingNotice,
  shortName,
} from "../organizations/invitations";
import { deliverBeforeAnswer } from "../notifications/outbox";
import { read, type ServiceContext } from "../context";
import { auditEntryQuery } from "../audit/log";
import { keptAnswerUpdates } from "../idempotency";
import { liveSubtreeStatement } from "./queries";
import { subtreeIds } from "./tree";
import { liveRoomsStatement, revalidateRooms } from "../collab/rooms";

/**
 * Grant `role` on each document; an existing grant is raised to it, never lowered (else an editor could
 * strip an owner by "inviting" them as viewer). One statement for any number of ids.
 * It must be a query builder, not db.run(sql): drizzle's D1 batch cannot bind a raw statement's parameters
 * (TypeError, so every invitation of an existing user and every registration with a pending one was a 500).
 * `WHERE true` resolves SQLite's INSERT … SELECT … ON CONFLICT parsing ambiguity.
 */
function grantStatement(db: Db, userId: string, role: DocumentRole, documentIds: string[], at: number) {
  return db
    .insert(documentCollaborators)
    .select(sql`SELECT value, ${userId}, ${role}, ${at} FROM json_each(${JSON.stringify(documentIds)}) WHERE true`)
    .onConflictDoUpdate({
      target: [documentCollaborators.documentId, documentCollaborators.userId],
      set: {
        role: sql`CASE WHEN ${rank(sql`excluded.role`)} > ${rank(documentCollaborators.role)} THEN excluded.role ELSE ${documentCollaborators.role} END`,
      },
    });
}

function rank(role: SQL | typeof documentCollaborators.role) {
  return sql`(CASE ${role} WHEN 'owner' THEN 3 WHEN 'editor' THEN 2 ELSE 1 END)`;
}

export interface InviteResult {
  invitationsSent: number;
  documentsInvited: number;
  usersInvited: number;
}

/**
 * E7: the invitation covers the document and, for a folder, every live document below it. An existing user is
 * granted at once (and notified); an unknown email gets a pending invitation applied when it registers.
 * Needs edit access; granting `owner` needs the owner role. One read batch (authentication, access, the invitee,
 * the covered documents) and one write batch.
 */
// eslint-disable-next-line max-lines-per-function -- the access checks, the grant and its notice form one ordered batch
export async function inviteUser(
  ctx: ServiceContext,
  input: { documentId: string; email: string; role: DocumentRole },
): Promise<InviteResult> {
  const [docs, wsRoles, docRoles, invitee, covered, pending] = await read(ctx, [
    ...documentsAccessStatements(ctx.db, ctx.user.ref, [input.documentId]),
    ctx.db.select({ id: users.id }).from(users).where(eq(users.email, input.email.toLowerCase())),
    liveSubtreeStatement(ctx.db, input.documentId),
    pendingInvitationsStatement(
      ctx.db,
      sql`(SELECT w.organization_id FROM workspaces w JOIN documents d ON d.workspace_id = w.id WHERE d.id = ${input.documentId})`,
    ),
  ]);
  const access = checkDocumentAccess(assembleDocumentsAccess([docs, wsRoles, docRoles]).get(input.documentId), "edit");
  if (input.role === "owner" && !access.isOwner) throw forbidden("Only an owner can grant the owner role");
  const existingUserId = invitee[0]?.id ?? null;
  const coveredIds = covered.map((c) => c.id);
  const t = ctx.now;
  const invitation = {
    // Issued on the document's logical shard: the id its notice derives from (noticeId) names the shard too.
    id: ctx.ids.beside(input.documentId),
    email: input.email,
    documentId: input.documentId,
    role: input.role,
    invitedBy: ctx.user.id,
    createdAt: t,
    acceptedAt: existingUserId ? t : null,
    // Counted against the organization's bound on pending invitations.
    organizationId: sql<string>`(SELECT w.organization_id FROM workspaces w WHERE w.id = ${access.doc.workspaceId})`,
  };
  const answer: InviteResult = {
    invitationsSent: 1,
    documentsInvited: coveredIds.length,
    usersInvited: existingUserId ? 1 : 0,
  };
  // A keyed request's answer commits with the invitation (services/idempotency.ts), so a crash cannot part them.
  const kept = await keptAnswerUpdates(ctx, { payload: { data: answer } });
  if (existingUserId) {
    // E7's documented answer tells whether the user exists; the notification it sends is limited per sender and
    // recipient, later ones folded into the newest, so one sender cannot bury a recipient in them. It is queued in
    // the shard's outbox in the grant's batch, ahead of the grant and only if the grant gives something the user
    // does not hold yet (a repeated share tells no one twice), then copied into the directory's notifications at once
    // (docs/scaling.md "Notifications: an outbox").
    const notice = sharingNotice({
      about: invitation.id,
      what: existingUserId,
      recipient: existingUserId,
      senderId: ctx.user.id,
      kind: "document.invited",
      title: `${ctx.user.name} shared "${shortName(access.doc.name)}" with you`,
      body: `You were given the ${input.role} role on ${coveredIds.length} document(s).`,
      data: { documentId: input.documentId, role: input.role },
      at: t,
    });
    const grantsSomething = sql`EXISTS (SELECT 1 FROM json_each(${JSON.stringify(coveredIds)}) c WHERE NOT EXISTS (
      SELECT 1 FROM document_collaborators dc WHERE dc.document_id = c.value AND dc.user_id = ${existingUserId} AND ${rank(sql`dc.role`)} >= ${rank(sql`${input.role}`)}))`;
    const [, , queued, , live] = await ctx.db.batch([
      ctx.db.insert(invitations).values(invitation),
      shareAudit(ctx, invitation, access.doc),
      queueSharingNotice(ctx.db, notice, grantsSomething),
      grantStatement(ctx.db, existingUserId, input.role, coveredIds, t),
      liveRoomsStatement(ctx.db, { documentIds: coveredIds }),
      ...kept,
    ]);
    await deliverBeforeAnswer(ctx, queued);
    // A raised role takes effect in live collaborative rooms at once (a viewer who became editor may now edit).
    await revalidateRooms(ctx.env, live, [existingUserId]);
  } else {
    // A pending invitation counts against the organization's bound (docs/api-guide.md).
    assertInvitationRoom(pending);
    await ctx.db.batch([
      ctx.db.insert(invitations).values(invitation),
      shareAudit(ctx, invitation, access.doc),
      ...kept,
    ]);
  }
  return answer;
}

/**
 * `share.invited` (docs/api-guide.md › Changes, history and audit), after the invitation's insert: the document
 * shared, with whom (the email) and the role, recorded when the invitation was made.
 */
function shareAudit(
  ctx: ServiceContext,
  invitation: { id: string; email: string; role: string; documentId: string },
  doc: { workspaceId: string; projectId: string },
) {
  return auditEntryQuery(ctx, {
    kind: "share.invited",
    recordId: invitation.documentId,
    workspaceId: doc.workspaceId,
    projectId: doc.projectId,
    changes: { email: { before: null, after: invitation.email }, role: { before: null, after: invitation.role } },
    exists: sql`EXISTS (SELECT 1 FROM invitations i WHERE i.id = ${invitation.id})`,
  });
}

/** Batchable: the pending document invitations of an email, oldest first. */
export function pendingInvitationsOf(db: Db, email: string) {
  return db
    .select()
    .from(invitations)
    .where(and(eq(invitations.email, email), isNull(invitations.acceptedAt)))
    .orderBy(invitations.createdAt);
}

/** At registration: every pending invitation for the email becomes grants over the documents it covers now. */
export async function applyPendingInvitations(
  ctx: ServiceContext,
  { user, pending }: { user: { id: string; email: string }; pending: (typeof invitations.$inferSelect)[] },
) {
  if (pending.length === 0) return 0;
  const { db, now: t } = ctx;
  const statements = [];
  for (const inv of pending) {
    const covered = await subtreeIds(ctx, { rootId: inv.documentId, onlyLive: true });
    if (covered.length > 0) statements.push(grantStatement(db, user.id, inv.role as DocumentRole, covered, t));
    statements.push(db.update(invitations).set({ acceptedAt: t }).where(eq(invitations.id, inv.id)));
  }
  await db.batch(statements as [(typeof statements)[number], ...(typeof statements)[number][]]);
  return pending.length;
}
