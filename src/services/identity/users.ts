import { organizationMembers, organizations, users, workspaceCollaborators, workspaces } from "../../db/schema";
import { conflict } from "../../errors";
import { isUniqueViolation } from "../../db/errors";
import { newId } from "../../lib/ids";
import { prepareToken } from "./tokens";
import { applyPendingInvitations, pendingInvitationsOf } from "../documents/invitations";
import { applyPendingMemberInvitations, pendingMemberInvitationsOf } from "../organizations/invitations";
import { workspaceDto } from "../workspaces/serialize";
import type { ServiceContext } from "../context";
import { newIdBeside, newOrganizationId } from "../../db/shardIds";

export function userDto(row: typeof users.$inferSelect) {
  return { _id: row.id, email: row.email, name: row.name, createdAt: row.createdAt };
}

export function organizationDto(row: typeof organizations.$inferSelect, role?: string) {
  return { _id: row.id, name: row.name, ownerId: row.ownerId, createdAt: row.createdAt, updatedAt: row.updatedAt, ...(role ? { role } : {}) };
}

/**
 * Registration: the user, a personal organization with a default workspace they own, and a first token,
 * written in one batch (a taken email fails it on the unique index: 409, nothing written); then pending
 * invitations for the email are applied. Two D1 round trips when none are pending.
 */
export async function createUser(ctx: ServiceContext, input: { email: string; name: string }) {
  const { db, now: t } = ctx;
  const user = { id: newId(), email: input.email, name: input.name, createdAt: t, updatedAt: t };
  const org = { id: newOrganizationId(), name: `${input.name}'s organization`, ownerId: user.id, createdAt: t, updatedAt: t };
  const ws = {
    id: newIdBeside(org.id),
    organizationId: org.id,
    name: "My workspace",
    description: "",
    isDefault: true,
    isShared: false,
    ownerId: user.id,
    createdAt: t,
    updatedAt: t,
  };
  const { record: token, insert: insertToken } = await prepareToken(ctx, { userId: user.id, name: "default", expiresAt: null });
  try {
    await db.batch([
      db.insert(users).values(user),
      db.insert(organizations).values(org),
      db.insert(organizationMembers).values({ organizationId: org.id, userId: user.id, role: "owner", createdAt: t }),
      db.insert(workspaces).values(ws),
      db.insert(workspaceCollaborators).values({ workspaceId: ws.id, userId: user.id, role: "owner", createdAt: t }),
      insertToken,
    ]);
  } catch (err) {
    // A taken email, or two registrations racing for one: the unique index decides.
    if (isUniqueViolation(err, "users.email")) throw conflict("A user with this email is already registered");
    throw err;
  }
  // Both kinds of pending invitation in one read; each kind applied only when there is one.
  const [documentInvitations, memberships] = await db.batch([pendingInvitationsOf(db, user.email), pendingMemberInvitationsOf(db, user.email)]);
  await applyPendingInvitations(ctx, { user: { id: user.id, email: user.email }, pending: documentInvitations });
  await applyPendingMemberInvitations(ctx, { user: { id: user.id, email: user.email }, pending: memberships });
  return {
    user: userDto(user),
    organization: organizationDto(org),
    workspace: workspaceDto(ws, [{ userId: user.id, role: "owner" }]),
    token,
  };
}
