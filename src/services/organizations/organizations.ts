/** Organizations and their members (API.md §4): the list in one round trip with authentication, writes in two. */
import { eq, sql } from "drizzle-orm";
import { checkOrganizationAccess, organizationAccessStatement, type OrganizationRole } from "../../auth/access";
import { organizationMembers, organizations, users } from "../../db/schema";
import { conflict, forbidden, notFound } from "../../errors";
import { newId } from "../../lib/ids";
import { read, type ServiceContext } from "../context";
import { keptAnswerUpdates } from "../idempotency";
import { organizationDto } from "../identity/users";

// The join's result keeps one member per name in a D1 batch: the organization's columns under their own names,
// and the member row contributes only `role` (which organizations does not have).
const organizationColumns = {
  id: organizations.id,
  name: organizations.name,
  ownerId: organizations.ownerId,
  createdAt: organizations.createdAt,
  updatedAt: organizations.updatedAt,
};

/** The organizations the caller belongs to, with the caller's role, oldest first. */
export async function listOrganizations(ctx: ServiceContext) {
  const [rows] = await read(ctx, [
    ctx.db
      .select({ ...organizationColumns, role: organizationMembers.role })
      .from(organizationMembers)
      .innerJoin(organizations, eq(organizations.id, organizationMembers.organizationId))
      .where(eq(organizationMembers.userId, ctx.user.ref))
      .orderBy(organizations.createdAt),
  ]);
  return rows.map(({ role, ...org }) => organizationDto(org, role));
}

/** Creates an organization; the caller becomes its owner. */
export async function createOrganization(ctx: ServiceContext, input: { name: string }) {
  const org = { id: newId(), name: input.name, ownerId: ctx.user.id, createdAt: ctx.now, updatedAt: ctx.now };
  const dto = organizationDto(org, "owner");
  // A keyed request's answer commits with the organization (services/idempotency.ts), so a crash cannot part them.
  await ctx.db.batch([
    ctx.db.insert(organizations).values(org),
    ctx.db.insert(organizationMembers).values({ organizationId: org.id, userId: ctx.user.id, role: "owner", createdAt: ctx.now }),
    ...(await keptAnswerUpdates(ctx, { data: dto })),
  ]);
  return dto;
}

/**
 * Adds (or changes the role of) a registered user by email. Needs the owner or admin role; only an owner can make
 * or change another owner; the organization owner's own role is fixed (409).
 */
export async function addOrganizationMember(ctx: ServiceContext, input: { organizationId: string; email: string; role: OrganizationRole }) {
  const { organizationId, role } = input;
  const [orgRows, target] = await read(ctx, [
    organizationAccessStatement(ctx.db, ctx.user.ref, organizationId),
    ctx.db
      .select({
        id: users.id,
        memberRole: sql<OrganizationRole | null>`(SELECT om.role FROM organization_members om WHERE om.organization_id = ${organizationId} AND om.user_id = "users"."id")`.as("member_role"),
      })
      .from(users)
      .where(eq(users.email, input.email.toLowerCase())),
  ]);
  const org = checkOrganizationAccess(orgRows[0], "admin");
  if (role === "owner" && org.callerRole !== "owner") throw forbidden("Only an owner can add another owner");
  const member = target[0];
  if (!member) throw notFound("User with this email");
  // Without these checks an admin could demote an owner, and anyone could leave the organization ownerless.
  if (org.callerRole !== "owner" && member.memberRole === "owner") throw forbidden("Only an owner can change another owner's role");
  if (member.id === org.ownerId && role !== "owner") throw conflict("The organization owner's role cannot be changed");
  await ctx.db
    .insert(organizationMembers)
    .values({ organizationId, userId: member.id, role, createdAt: ctx.now })
    .onConflictDoUpdate({ target: [organizationMembers.organizationId, organizationMembers.userId], set: { role } });
  return { organizationId, userId: member.id, role };
}
