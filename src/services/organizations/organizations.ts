/** Organizations and their members (docs/api-guide.md › Concepts): the list in one round trip with authentication, writes in up to three. */
import { and, eq, sql } from "drizzle-orm";
import {
  checkOrganizationAccess,
  organizationAccessStatement,
  type OrganizationRole,
} from "../../auth/organizationAccess";
import { organizationMembers, organizations, users } from "../../db/schema";
import { outsideResources } from "../../auth/tokenLimits";
import { conflict, forbidden } from "../../errors";
import {
  assertInvitationRoom,
  pendingInvitationsStatement,
  pendingInvitationStatement,
  queueSharingNotice,
  sharingNotice,
  shortName,
  tooManyPendingInvitations,
} from "./invitations";
import { deliverBeforeAnswer } from "../notifications/outbox";
import { read, type ServiceContext } from "../context";
import { keptAnswerUpdates } from "../idempotency";
import { invitationAudit, memberAudit } from "./audit";
import { organizationDto } from "../identity/users";
import {
  indexMemberships,
  membershipRowsStatement,
  nextMemberVersion,
  userOrganizationsStatement,
} from "./userOrganizations";

/**
 * The organizations the caller belongs to, with the caller's role, oldest first: from the directory's index of
 * memberships, in the batch that checks the token (docs/scaling.md "The directory index of memberships").
 */
export async function listOrganizations(ctx: ServiceContext) {
  const [rows] = await read(ctx, [userOrganizationsStatement(ctx.db, ctx.user.ref)]);
  // A token limited to resources lists only the organizations it was given, as reading one outside them is 404.
  return rows
    .filter((r) => !outsideResources({ organizationId: r.organizationId }))
    .map((r) =>
      organizationDto(
        { id: r.organizationId, name: r.name, ownerId: r.ownerId, createdAt: r.createdAt, updatedAt: r.updatedAt },
        r.role,
      ),
    );
}

/** Creates an organization; the caller becomes its owner. */
export async function createOrganization(ctx: ServiceContext, input: { name: string }) {
  const org = {
    id: ctx.placedOrganizationId ?? ctx.ids.organization(),
    name: input.name,
    ownerId: ctx.user.id,
    createdAt: ctx.now,
    updatedAt: ctx.now,
  };
  const home = ctx.on(org.id);
  const dto = organizationDto(org, "owner");
  // A keyed request's answer commits with the organization (services/idempotency.ts), so a crash cannot part them.
  await home.db.batch([
    home.db.insert(organizations).values(org),
    home.db.insert(organizationMembers).values({
      organizationId: org.id,
      userId: home.user.id,
      role: "owner",
      createdAt: home.now,
      updatedAt: home.now,
    }),
    ...(await keptAnswerUpdates(home, { payload: { data: dto } })),
  ]);
  // Then the directory's index of memberships (its failure is left to the repair: the organization exists).
  await indexMemberships(home, [
    { ...org, organizationId: org.id, userId: home.user.id, role: "owner", memberUpdatedAt: home.now },
  ]);
  return dto;
}

/**
 * Adds (or changes the role of) a member by email. Needs the owner or admin role; only an owner can make or change
 * another owner; the organization owner's own role is fixed (409). A registered user is added at once, an
 * unregistered email gets a pending invitation applied when it registers; the answer is the same either way, and
 * so is the refusal once the organization holds MAX_PENDING_INVITATIONS pending invitations.
 */
// eslint-disable-next-line max-lines-per-function -- the role checks, the membership, its notice and the index write in their order
export async function addOrganizationMember(
  ctx: ServiceContext,
  input: { organizationId: string; email: string; role: OrganizationRole },
) {
  const { organizationId, role } = input;
  const email = input.email.toLowerCase();
  const [orgRows, target, pending] = await read(ctx, [
    organizationAccessStatement(ctx.db, ctx.user.ref, organizationId),
    ctx.db
      .select({
        id: users.id,
        memberRole:
          sql<OrganizationRole | null>`(SELECT om.role FROM organization_members om WHERE om.organization_id = ${organizationId} AND om.user_id = "users"."id")`.as(
            "member_role",
          ),
      })
      .from(users)
      .where(eq(users.email, email)),
    pendingInvitationsStatement(ctx.db, organizationId),
  ]);
  const org = checkOrganizationAccess(orgRows[0], "admin");
  if (role === "owner" && org.callerRole !== "owner") throw forbidden("Only an owner can add another owner");
  const member = target[0];
  // Without these checks an admin could demote an owner, and anyone could leave the organization ownerless (the
  // admin knows who the members are, so these tell nothing about accounts).
  if (member && org.callerRole !== "owner" && member.memberRole === "owner")
    throw forbidden("Only an owner can change another owner's role");
  if (member && member.id === org.ownerId && role !== "owner")
    throw conflict("The organization owner's role cannot be changed");
  const answer = { organizationId, email, role };
  // A role change of an existing member is not an invitation; anything else waits for room, registered or not.
  if (member?.memberRole) {
    const [, , indexed] = await ctx.db.batch([
      memberAudit(ctx, { organizationId }, member.id, member.memberRole, role),
      ctx.db
        .update(organizationMembers)
        .set({ role, updatedAt: nextMemberVersion(ctx.now) })
        .where(and(eq(organizationMembers.organizationId, organizationId), eq(organizationMembers.userId, member.id))),
      membershipRowsStatement(ctx.db, organizationId, [member.id]),
    ]);
    await indexMemberships(ctx, indexed);
    return answer;
  }
  assertInvitationRoom(pending);
  if (member) {
    // The new member is told who added them, within the per-sender notification limit: the notice is queued in the
    // shard's outbox with the membership, only if this batch made it (a repeated add tells no one twice), and copied
    // into the directory's notifications at once (docs/scaling.md "Notifications: an outbox").
    const notice = sharingNotice({
      about: organizationId,
      what: `${member.id}\n${ctx.now}`,
      recipient: member.id,
      senderId: ctx.user.id,
      kind: "organization.member_added",
      title: `${ctx.user.name} added you to "${shortName(org.name)}"`,
      body: `You are now ${role === "member" ? "a member" : `an ${role}`} of this organization.`,
      data: { organizationId, role },
      at: ctx.now,
    });
    const [, , queued, indexed] = await ctx.db.batch([
      memberAudit(ctx, { organizationId }, member.id, null, role),
      ctx.db
        .insert(organizationMembers)
        .values({ organizationId, userId: member.id, role, createdAt: ctx.now, updatedAt: ctx.now })
        .onConflictDoUpdate({
          target: [organizationMembers.organizationId, organizationMembers.userId],
          set: { role, updatedAt: nextMemberVersion(ctx.now) },
        }),
      queueSharingNotice(
        ctx.db,
        notice,
        sql`EXISTS (SELECT 1 FROM organization_members om WHERE om.organization_id = ${organizationId} AND om.user_id = ${member.id} AND om.created_at = ${ctx.now})`,
      ),
      membershipRowsStatement(ctx.db, organizationId, [member.id]),
    ]);
    // The directory's index of memberships beside the notice's delivery (both in the directory, after the shard's write).
    await Promise.all([deliverBeforeAnswer(ctx, queued), indexMemberships(ctx, indexed)]);
  } else {
    const [[stored]] = await ctx.db.batch([
      pendingInvitationStatement(ctx.db, { organizationId, email, role, invitedBy: ctx.user.id, at: ctx.now }),
      invitationAudit(ctx, { organizationId, email, role }),
    ]);
    if (!stored) tooManyPendingInvitations();
  }
  return answer;
}
