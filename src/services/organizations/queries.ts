/**
 * The organizations area's statement builders (docs/architecture.md, "Services and statements"): pending
 * invitations and their bound, memberships as the directory index holds them, and a membership's next version. They
 * return the query without running it; ./organizations.ts, ./invitations.ts, ./userOrganizations.ts and the
 * workspaces, documents and identity services run them in their batches. The invitation bound is ./invitations.ts's,
 * read only inside a builder, so either module may load first.
 */
import { and, asc, eq, inArray, isNull, sql, type SQL } from "drizzle-orm";
import { memberInvitations, organizationMembers, organizations, userOrganizations } from "../../db/schema";
import { insertWhere, rawSelect } from "../../db/sql";
import type { Db } from "../../env";
import { newId } from "../../lib/ids";
import { MAX_PENDING_INVITATIONS, type InvitationRole } from "./invitations";

/**
 * The `updated_at` a change of an existing membership writes: `now`, or one more than the version it replaces if that
 * is later (another isolate's clock ahead of this one). Each change of a membership thus carries a newer version than
 * the one before, whatever the clocks, so the index (which keeps the newest version) ends on the last change.
 */
export function nextMemberVersion(now: number): SQL<number> {
  return sql<number>`MAX(${organizationMembers.updatedAt} + 1, ${now})`;
}

// Aliased: a D1 batch returns objects, and organizations and organization_members both have `updated_at`.
const membershipColumns = {
  userId: organizationMembers.userId,
  organizationId: organizationMembers.organizationId,
  name: organizations.name,
  ownerId: organizations.ownerId,
  role: organizationMembers.role,
  createdAt: organizations.createdAt,
  updatedAt: organizations.updatedAt,
  memberUpdatedAt: sql<number>`${organizationMembers.updatedAt}`.as("member_updated_at"),
};

/** Batchable, in a shard: the memberships of `userIds` in `organizationId` as the index holds them (after the write it rides behind). */
export function membershipRowsStatement(db: Db, organizationId: string, userIds: string[]) {
  return db
    .select(membershipColumns)
    .from(organizationMembers)
    .innerJoin(organizations, eq(organizations.id, organizationMembers.organizationId))
    .where(and(eq(organizationMembers.organizationId, organizationId), inArray(organizationMembers.userId, userIds)));
}

/** Batchable, in the directory: the caller's organizations from the index, oldest first (id breaks ties). */
export function userOrganizationsStatement(dir: Db, userRef: SQL) {
  return dir
    .select()
    .from(userOrganizations)
    .where(eq(userOrganizations.userId, userRef))
    .orderBy(asc(userOrganizations.createdAt), asc(userOrganizations.organizationId));
}

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

/** Batchable: the pending memberships and collaborations of an email, organization memberships first. */
export function pendingMemberInvitationsOf(db: Db, email: string) {
  return db
    .select()
    .from(memberInvitations)
    .where(and(eq(memberInvitations.email, email.toLowerCase()), isNull(memberInvitations.acceptedAt)))
    .orderBy(memberInvitations.workspaceId, memberInvitations.createdAt);
}
