/**
 * Workspaces (docs/api-guide.md › Concepts; Projects and documents): reads in one D1 round trip (authentication, access and data in one batch), writes in
 * two (the access batch, then one write batch that also reads back what the response needs).
 */
import { and, eq, sql } from "drizzle-orm";
import { nextUpdatedAt } from "../../db/sql";
import { checkWorkspaceAccess, workspaceAccessStatement, type WorkspaceRow } from "../../auth/access";
import { checkOrganizationAccess, organizationAccessStatement } from "../../auth/organizationAccess";
import { documentCollaborators, organizationMembers, users, workspaceCollaborators, workspaces } from "../../db/schema";
import { indexMemberships, membershipRowsStatement } from "../organizations/userOrganizations";
import { conflict, notFound, preconditionFailed } from "../../errors";
import {
  assertInvitationRoom,
  pendingInvitationsStatement,
  pendingInvitationStatement,
  queueSharingNotice,
  sharingNotice,
  shortName,
  tooManyPendingInvitations,
} from "../organizations/invitations";
import { deliverBeforeAnswer } from "../notifications/outbox";
import type { ExpectedVersion } from "../../lib/etag";
import { assertExpectedVersion } from "../preconditions";
import { read, type ServiceContext } from "../context";
import { keptAnswerUpdates } from "../idempotency";
import { workspaceCollaboratorsStatement } from "./queries";
import { groupWorkspaceCollaborators, workspaceDto } from "./serialize";
import { liveRoomsStatement, revalidateRooms } from "../collab/rooms";
import { invitationAudit, memberAudit, memberRemovedAudit } from "../organizations/audit";

export type WorkspaceDto = ReturnType<typeof workspaceDto>;

function dtoOf(workspace: WorkspaceRow, collaborators: (typeof workspaceCollaborators.$inferSelect)[]) {
  return workspaceDto(workspace, groupWorkspaceCollaborators(collaborators).get(workspace.id) ?? []);
}

/** A workspace the caller collaborates on; else 404. */
export async function getWorkspace(
  ctx: ServiceContext,
  { workspaceId }: { workspaceId: string },
): Promise<WorkspaceDto> {
  const [rows, collaborators] = await read(ctx, [
    workspaceAccessStatement(ctx.db, ctx.user.ref, workspaceId),
    workspaceCollaboratorsStatement(ctx.db, [workspaceId]),
  ]);
  return dtoOf(checkWorkspaceAccess(rows[0], "read").workspace, collaborators);
}

/** E17: the organization's workspaces the caller collaborates on, if the caller is a member; else `[]`. */
export async function listWorkspaces(
  ctx: ServiceContext,
  { organizationId }: { organizationId: string },
): Promise<WorkspaceDto[]> {
  const [rows, collaborators] = await read(ctx, [
    ctx.db
      .select()
      .from(workspaces)
      .where(
        and(
          eq(workspaces.organizationId, organizationId),
          sql`EXISTS (SELECT 1 FROM workspace_collaborators wc WHERE wc.workspace_id = "workspaces"."id" AND wc.user_id = ${ctx.user.ref})`,
          sql`EXISTS (SELECT 1 FROM organization_members om WHERE om.organization_id = ${organizationId} AND om.user_id = ${ctx.user.ref})`,
        ),
      )
      .orderBy(workspaces.createdAt),
    workspaceCollaboratorsStatement(
      ctx.db,
      sql`SELECT w.id FROM workspaces w WHERE w.organization_id = ${organizationId}`,
    ),
  ]);
  const byWorkspace = groupWorkspaceCollaborators(collaborators);
  return rows.map((w) => workspaceDto(w, byWorkspace.get(w.id) ?? []));
}

/** Creates a workspace in an organization the caller belongs to; the caller becomes its owner. */
export async function createWorkspace(
  ctx: ServiceContext,
  input: { organizationId: string; name: string; description?: string; isShared?: boolean },
): Promise<WorkspaceDto> {
  const [org] = await read(ctx, [organizationAccessStatement(ctx.db, ctx.user.ref, input.organizationId)]);
  checkOrganizationAccess(org[0], "read");
  const ws: WorkspaceRow = {
    id: ctx.ids.beside(input.organizationId),
    organizationId: input.organizationId,
    name: input.name,
    description: input.description ?? "",
    isDefault: false,
    isShared: input.isShared ?? false,
    ownerId: ctx.user.id,
    createdAt: ctx.now,
    updatedAt: ctx.now,
  };
  const dto = workspaceDto(ws, [{ userId: ctx.user.id, role: "owner" }]);
  // A keyed request's answer commits with the workspace (services/idempotency.ts), so a crash cannot part them.
  await ctx.db.batch([
    ctx.db.insert(workspaces).values(ws),
    ctx.db
      .insert(workspaceCollaborators)
      .values({ workspaceId: ws.id, userId: ctx.user.id, role: "owner", createdAt: ctx.now }),
    ...(await keptAnswerUpdates(ctx, { payload: { data: dto } })),
  ]);
  return dto;
}

/**
 * Updates a workspace (owner or admin). With `expected`, the workspace's current representation (what its GET
 * returns) must carry that ETag, else 412 and nothing changes.
 */
export async function updateWorkspace(
  ctx: ServiceContext,
  input: {
    workspaceId: string;
    patch: { name?: string; description?: string; isShared?: boolean };
    expected?: ExpectedVersion;
  },
): Promise<WorkspaceDto> {
  const [rows, collaborators] = await read(ctx, [
    workspaceAccessStatement(ctx.db, ctx.user.ref, input.workspaceId),
    workspaceCollaboratorsStatement(ctx.db, [input.workspaceId]),
  ]);
  const { workspace } = checkWorkspaceAccess(rows[0], "admin");
  await assertExpectedVersion(input.expected, () => ({ data: dtoOf(workspace, collaborators) }));
  const { name, description, isShared } = input.patch;
  const [updated] = await ctx.db
    .update(workspaces)
    .set({
      ...(name !== undefined && { name }),
      ...(description !== undefined && { description }),
      ...(isShared !== undefined && { isShared }),
      updatedAt: nextUpdatedAt(workspaces.updatedAt, ctx.now),
    })
    // With If-Match, a compare-and-set on the row as checked: a concurrent write in between makes this a 412.
    .where(
      and(
        eq(workspaces.id, input.workspaceId),
        input.expected === undefined ? undefined : eq(workspaces.updatedAt, workspace.updatedAt),
      ),
    )
    .returning();
  if (!updated) throw preconditionFailed();
  return dtoOf(updated, collaborators);
}

/**
 * Adds a collaborator by email or changes their role (owner or admin). A registered user is added at once and also
 * becomes a member of the workspace's organization, so E17 lists the workspace for them; an unregistered email gets
 * a pending invitation applied when it registers. The answer is the same either way (so is the refusal at the
 * organization's bound on pending invitations). The owner's role is fixed (409).
 */
// eslint-disable-next-line max-lines-per-function -- the role checks, the grant, its notice and its index write in their order
export async function addWorkspaceCollaborator(
  ctx: ServiceContext,
  input: { workspaceId: string; email: string; role: "admin" | "editor" | "commenter" | "viewer" },
) {
  const { workspaceId, role } = input;
  const email = input.email.toLowerCase();
  const [rows, target, pending] = await read(ctx, [
    workspaceAccessStatement(ctx.db, ctx.user.ref, workspaceId),
    ctx.db
      .select({
        id: users.id,
        collaboratorRole: sql<
          string | null
        >`(SELECT wc.role FROM workspace_collaborators wc WHERE wc.workspace_id = ${workspaceId} AND wc.user_id = "users"."id")`.as(
          "collaborator_role",
        ),
      })
      .from(users)
      .where(eq(users.email, email)),
    pendingInvitationsStatement(ctx.db, sql`(SELECT w.organization_id FROM workspaces w WHERE w.id = ${workspaceId})`),
  ]);
  const { workspace } = checkWorkspaceAccess(rows[0], "admin");
  const targetId = target[0]?.id;
  const answer = { workspaceId, email, role };
  if (targetId === workspace.ownerId) throw conflict("The workspace owner's role cannot be changed");
  // A role change of an existing collaborator is not an invitation; anything else waits for room, registered or not.
  if (!target[0]?.collaboratorRole) assertInvitationRoom(pending);
  if (!targetId) {
    const invitation = { organizationId: workspace.organizationId, workspaceId, email, role };
    const [[stored]] = await ctx.db.batch([
      pendingInvitationStatement(ctx.db, { ...invitation, invitedBy: ctx.user.id, at: ctx.now }),
      invitationAudit(ctx, invitation),
    ]);
    if (!stored) tooManyPendingInvitations();
    return answer;
  }
  // A newcomer is told (within the per-sender notification limit) and may leave: DELETE of their own collaboration.
  // The notice is queued in the shard's outbox with the collaboration, only if this batch made it (a repeated add
  // tells no one twice), and copied into the directory's notifications at once (docs/scaling.md "Notifications: an outbox").
  const notice = target[0]?.collaboratorRole
    ? null
    : sharingNotice({
        about: workspaceId,
        what: `${targetId}\n${ctx.now}`,
        recipient: targetId,
        senderId: ctx.user.id,
        kind: "workspace.shared",
        title: `${ctx.user.name} shared the workspace "${shortName(workspace.name)}" with you`,
        body: `You were given the ${role} role.`,
        data: { workspaceId, role },
        at: ctx.now,
      });
  const before = target[0]?.collaboratorRole ?? null;
  const [, , , , live, membership, queued] = await ctx.db.batch([
    memberAudit(ctx, { workspaceId }, targetId, before, role),
    ctx.db
      .insert(workspaceCollaborators)
      .values({ workspaceId, userId: targetId, role, createdAt: ctx.now })
      .onConflictDoUpdate({
        target: [workspaceCollaborators.workspaceId, workspaceCollaborators.userId],
        set: { role },
      }),
    memberAudit(ctx, { organizationId: workspace.organizationId }, targetId, null, "member"),
    ctx.db
      .insert(organizationMembers)
      .values({
        organizationId: workspace.organizationId,
        userId: targetId,
        role: "member",
        createdAt: ctx.now,
        updatedAt: ctx.now,
      })
      .onConflictDoNothing(),
    liveRoomsStatement(ctx.db, { workspaceId }),
    membershipRowsStatement(ctx.db, workspace.organizationId, [targetId]),
    ...(notice
      ? [
          queueSharingNotice(
            ctx.db,
            notice,
            sql`EXISTS (SELECT 1 FROM workspace_collaborators wc WHERE wc.workspace_id = ${workspaceId} AND wc.user_id = ${targetId} AND wc.created_at = ${ctx.now})`,
          ),
        ]
      : []),
  ]);
  // The membership as the shard now holds it, into the directory's index (docs/scaling.md): beside the notice.
  const indexed = indexMemberships(ctx, membership);
  if (queued) await deliverBeforeAnswer(ctx, queued);
  // A changed role (editor → viewer) takes effect in the workspace's live collaborative rooms at once.
  await revalidateRooms(ctx.env, live, [targetId]);
  await indexed;
  return answer;
}

/**
 * Removes a collaborator (owner or admin; anyone may remove themselves); the owner cannot be removed (409), a
 * non-collaborator is 404. Their document grants in the workspace end too.
 */
export async function removeWorkspaceCollaborator(
  ctx: ServiceContext,
  input: { workspaceId: string; userId: string },
): Promise<WorkspaceDto> {
  const { workspaceId, userId } = input;
  const [rows] = await read(ctx, [workspaceAccessStatement(ctx.db, ctx.user.ref, workspaceId)]);
  const { workspace } = checkWorkspaceAccess(rows[0], userId === ctx.user.id ? "read" : "admin");
  if (userId === workspace.ownerId) throw conflict("The workspace owner cannot be removed");
  // Leaving a workspace also ends the document grants held in it (every document a member created carries
  // an owner grant, which would otherwise keep the documents and, through them, the project readable).
  // The grants go first: the EXISTS keeps a document-only guest's grants when the user is no collaborator.
  const [, , removed, collaborators, live] = await ctx.db.batch([
    memberRemovedAudit(ctx, { workspaceId }, userId),
    ctx.db
      .delete(documentCollaborators)
      .where(
        and(
          eq(documentCollaborators.userId, userId),
          sql`${documentCollaborators.documentId} IN (SELECT id FROM documents WHERE workspace_id = ${workspaceId})`,
          sql`EXISTS (SELECT 1 FROM workspace_collaborators WHERE workspace_id = ${workspaceId} AND user_id = ${userId})`,
        ),
      ),
    ctx.db
      .delete(workspaceCollaborators)
      .where(and(eq(workspaceCollaborators.workspaceId, workspaceId), eq(workspaceCollaborators.userId, userId)))
      .returning(),
    workspaceCollaboratorsStatement(ctx.db, [workspaceId]),
    liveRoomsStatement(ctx.db, { workspaceId }),
  ]);
  if (removed.length === 0) throw notFound("Collaborator");
  // Whoever lost access is dropped from the workspace's live collaborative rooms now, not at their next connect.
  await revalidateRooms(ctx.env, live, [userId]);
  return dtoOf(workspace, collaborators);
}
