/**
 * The audit entries of memberships (docs/api-guide.md › Changes, history and audit): an organization's members and
 * a workspace's collaborators, each for the batch of the write it records and recorded only when that write
 * changed something.
 */
import { sql, type SQL } from "drizzle-orm";
import { auditEntryQuery } from "../audit/log";
import type { ServiceContext } from "../context";
import type { ChangeActor } from "../../db/schema/changes";

/** Whose membership: of the organization, or of one of its workspaces (a collaborator). */
type Membership =
  { organizationId: string; workspaceId?: undefined } | { workspaceId: string; organizationId?: string };

function memberRow(of: Membership, userId: string, what = sql`1`): SQL {
  return of.workspaceId
    ? sql`SELECT ${what} FROM workspace_collaborators m WHERE m.workspace_id = ${of.workspaceId} AND m.user_id = ${userId}`
    : sql`SELECT ${what} FROM organization_members m WHERE m.organization_id = ${of.organizationId} AND m.user_id = ${userId}`;
}

/**
 * `member.added` (recorded when there is no membership yet) or `member.role_changed` (when the stored role differs),
 * about the member's user id: BEFORE the upsert or update in its batch.
 */
export function memberAudit(
  ctx: ServiceContext,
  of: Membership,
  userId: string,
  before: string | null,
  role: string,
  actor?: ChangeActor,
) {
  const row = memberRow(of, userId);
  return auditEntryQuery(ctx, {
    ...of,
    ...(actor && { actor }),
    kind: before === null ? "member.added" : "member.role_changed",
    recordId: userId,
    changes: { role: { before, after: role } },
    exists: before === null ? sql`NOT EXISTS (${row})` : sql`EXISTS (${row} AND m.role <> ${role})`,
  });
}

/** `member.removed` (before the delete: recorded when there is a membership to remove). */
export function memberRemovedAudit(ctx: ServiceContext, of: Membership, userId: string) {
  const row = memberRow(of, userId);
  return auditEntryQuery(ctx, {
    ...of,
    kind: "member.removed",
    recordId: userId,
    changesSql: sql`json_object('role', json_object('before', (${memberRow(of, userId, sql`m.role`)}), 'after', NULL))`,
    exists: sql`EXISTS (${row})`,
  });
}

/** `member.invited` (after the invitation's upsert: recorded when it holds this role now). */
export function invitationAudit(
  ctx: ServiceContext,
  input: { organizationId: string; workspaceId?: string; email: string; role: string },
) {
  return auditEntryQuery(ctx, {
    organizationId: input.organizationId,
    workspaceId: input.workspaceId ?? null,
    kind: "member.invited",
    recordId: input.workspaceId ?? input.organizationId,
    changes: { email: { before: null, after: input.email }, role: { before: null, after: input.role } },
    exists: sql`EXISTS (SELECT 1 FROM member_invitations mi WHERE mi.organization_id = ${input.organizationId}
      AND mi.workspace_id = ${input.workspaceId ?? ""} AND mi.email = ${input.email} AND mi.role = ${input.role}
      AND mi.accepted_at IS NULL)`,
  });
}
