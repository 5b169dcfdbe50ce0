/**
 * Offering membership by email without telling whether the email has an account (docs/api-guide.md,
 * "Organizations and workspaces"): a registered user is added at once, an unregistered email gets a pending
 * invitation applied when it registers, and both answer alike. Pending invitations per organization are bounded
 * (checked before the email is looked at, so the bound is no oracle either), and in-app notifications from one
 * sender to one recipient are limited per hour, later ones folded into the newest. Those notices go through the
 * shard's notification outbox in the batch of the write they announce (docs/scaling.md "Notifications: an outbox").
 */
import { and, eq, isNull, sql, type SQL } from "drizzle-orm";
import { memberInvitations, organizationMembers, workspaceCollaborators } from "../../db/schema";
import { insertWhere, rawSelect } from "../../db/sql";
import type { Db } from "../../env";
import { conflict } from "../../errors";
import { newId } from "../../lib/ids";
import type { ServiceContext } from "../context";
import { indexMemberships, membershipRowsStatement, nextMemberVersion, type MembershipRow } from "./userOrganizations";
import { NOTICES_PER_SENDER_PER_HOUR, noticeId, outboxNotices, type Notice } from "../notifications/outbox";
import { memberAudit } from "./audit";

/** Pending invitations (members, collaborators and E7 document invitations) one organization may hold. */
export const MAX_PENDING_INVITATIONS = 200;
/** In-app notifications one sender may put on one recipient per hour; later ones are folded into the newest (applied on delivery). */
export const NOTIFICATIONS_PER_SENDER_PER_HOUR = NOTICES_PER_SENDER_PER_HOUR;

export type InvitationRole = (typeof memberInvitations.$inferSelect)["role"];

/**
 * Batchable: `{ n }`, the organization's pending invitations of every kind. `organizationId` may be SQL (a subquery
 * naming the organization of a document, for E7).
 */
export function pendingInvitationsStatement(db: Db, organizationId: string | SQL) {
  return rawSelect<{ n: number }>(
    db,
    ["n"],
    sql`SELECT
      (SELECT COUNT(*) FROM member_invitations mi WHERE mi.organization_id = ${organizationId} AND mi.accepted_at IS NULL)
      + (SELECT COUNT(*) FROM invitations i WHERE i.organization_id = ${organizationId} AND i.accepted_at IS NULL) AS n`,
  );
}

export function tooManyPendingInvitations(): never {
  throw conflict(
    `This organization has ${MAX_PENDING_INVITATIONS} pending invitations; more can be sent once some are accepted`,
  );
}

/** The read side of `pendingInvitationsStatement`: 409 at the bound. */
export function assertInvitationRoom(rows: readonly { n: number }[]) {
  if ((rows[0]?.n ?? 0) >= MAX_PENDING_INVITATIONS) tooManyPendingInvitations();
}

/**
 * The statement that stores (or re-roles) a pending invitation, inserted only while the organization is under the
 * bound, so concurrent invitations cannot pass it: `RETURNING id` is empty when refused (or re-roled at the bound).
 */
export function pendingInvitationStatement(
  db: Db,
  input: {
    organizationId: string;
    workspaceId?: string;
    email: string;
    role: InvitationRole;
    invitedBy: string;
    at: number;
  },
) {
  const row = {
    id: newId(),
    organizationId: input.organizationId,
    workspaceId: input.workspaceId ?? "",
    email: input.email.toLowerCase(),
    role: input.role,
    invitedBy: input.invitedBy,
    createdAt: input.at,
    acceptedAt: null,
  };
  return insertWhere(
    db,
    memberInvitations,
    row,
    sql`(SELECT COUNT(*) FROM member_invitations mi WHERE mi.organization_id = ${input.organizationId} AND mi.accepted_at IS NULL) < ${MAX_PENDING_INVITATIONS}
      OR EXISTS (SELECT 1 FROM member_invitations mi WHERE mi.organization_id = ${input.organizationId} AND mi.workspace_id = ${row.workspaceId} AND mi.email = ${row.email})`,
  )
    .onConflictDoUpdate({
      target: [memberInvitations.organizationId, memberInvitations.workspaceId, memberInvitations.email],
      set: { role: row.role, invitedBy: row.invitedBy, acceptedAt: null },
    })
    .returning({ id: memberInvitations.id });
}

/**
 * A sharing or membership notice (docs/scaling.md "Notifications: an outbox"): from `senderId` (recorded as
 * `data.invitedBy`, which makes it limited per sender and recipient when the directory takes it) to `recipient`,
 * about the shard record `about` (its id, or its organization's or workspace's id for a record keyed by two ids)
 * and `what` happened to it, so the same event always gets the same id.
 */
export function sharingNotice(input: {
  about: string;
  what: string;
  recipient: string;
  senderId: string;
  kind: string;
  title: string;
  body: string;
  data: Record<string, unknown>;
  at: number;
}): Notice {
  return {
    id: noticeId(input.about, `${input.kind}\n${input.what}`),
    userId: input.recipient,
    kind: input.kind,
    title: input.title,
    body: input.body,
    data: { ...input.data, invitedBy: input.senderId },
    createdAt: input.at,
  };
}

/**
 * Batchable, in the shard batch of the write the notice announces: queues `notice` in the shard's outbox when
 * `condition` holds as the statement runs (the write made something new, so a repeated request tells no one twice);
 * the rows queued come back for deliverBeforeAnswer. NOTICES_PER_SENDER_PER_HOUR applies when the directory
 * takes it (copyToDirectory), where the recipient's notifications are.
 */
export function queueSharingNotice(db: Db, notice: Notice, condition: SQL) {
  return outboxNotices(db, [notice], notice.createdAt, condition);
}

/** A name the sender chose, shortened for a notification's title. */
export function shortName(name: string, max = 80) {
  return name.length > max ? `${name.slice(0, max - 1)}…` : name;
}

/** Batchable: the pending memberships and collaborations of an email, organization memberships first. */
export function pendingMemberInvitationsOf(db: Db, email: string) {
  return db
    .select()
    .from(memberInvitations)
    .where(and(eq(memberInvitations.email, email.toLowerCase()), isNull(memberInvitations.acceptedAt)))
    .orderBy(memberInvitations.workspaceId, memberInvitations.createdAt);
}

/**
 * At registration: every pending membership and collaboration for the email takes effect (organization
 * memberships first, so a workspace invitation does not lower an organization role).
 */
export async function applyPendingMemberInvitations(
  ctx: ServiceContext,
  { user, pending }: { user: { id: string; email: string }; pending: (typeof memberInvitations.$inferSelect)[] },
) {
  if (pending.length === 0) return 0;
  const { db, now: t } = ctx;
  const statements = [];
  // The new user joins by registering: the membership's audit entry names them as its actor.
  const joiner = { type: "user", userId: user.id } as const;
  for (const inv of pending) {
    if (inv.workspaceId === "") {
      const role = inv.role as "owner" | "admin" | "member";
      statements.push(
        memberAudit(ctx, { organizationId: inv.organizationId }, user.id, null, role, joiner),
        db
          .insert(organizationMembers)
          .values({ organizationId: inv.organizationId, userId: user.id, role, createdAt: t, updatedAt: t })
          .onConflictDoUpdate({
            target: [organizationMembers.organizationId, organizationMembers.userId],
            set: { role, updatedAt: nextMemberVersion(t) },
          }),
      );
    } else {
      const role = inv.role as "admin" | "editor" | "commenter" | "viewer";
      statements.push(
        memberAudit(ctx, { workspaceId: inv.workspaceId }, user.id, null, role, joiner),
        db
          .insert(workspaceCollaborators)
          .values({ workspaceId: inv.workspaceId, userId: user.id, role, createdAt: t })
          .onConflictDoUpdate({
            target: [workspaceCollaborators.workspaceId, workspaceCollaborators.userId],
            set: { role },
          }),
        memberAudit(ctx, { organizationId: inv.organizationId }, user.id, null, "member", joiner),
        db
          .insert(organizationMembers)
          .values({ organizationId: inv.organizationId, userId: user.id, role: "member", createdAt: t, updatedAt: t })
          .onConflictDoNothing(),
      );
    }
    statements.push(db.update(memberInvitations).set({ acceptedAt: t }).where(eq(memberInvitations.id, inv.id)));
  }
  // Last in the batch, the memberships as they now stand, for the directory's index (written after, docs/scaling.md).
  const organizationIds = [...new Set(pending.map((inv) => inv.organizationId))];
  const memberships = organizationIds.map((id) => membershipRowsStatement(db, id, [user.id]));
  const results = await db.batch([...statements, ...memberships] as [
    (typeof statements)[number],
    ...(typeof statements)[number][],
  ]);
  await indexMemberships(ctx, (results.slice(statements.length) as unknown as MembershipRow[][]).flat());
  return pending.length;
}
