/** Who may see and administer an organization: its members, and its owners and admins (docs/api-guide.md › Concepts). */
import { eq, getTableColumns, sql } from "drizzle-orm";
import type { Db } from "../env";
import { organizations } from "../db/schema";
import { forbidden, notFound } from "../errors";
import type { UserRef } from "./access";
import { outsideResources } from "./tokenLimits";

export type OrganizationRole = "owner" | "admin" | "member";

/** Batchable: the organization with the caller's role (`callerRole` null when not a member). */
export function organizationAccessStatement(db: Db, user: UserRef, id: string) {
  return db
    .select({
      ...getTableColumns(organizations),
      callerRole:
        sql<OrganizationRole | null>`(SELECT om.role FROM organization_members om WHERE om.organization_id = "organizations"."id" AND om.user_id = ${user})`.as(
          "caller_role",
        ),
    })
    .from(organizations)
    .where(eq(organizations.id, id));
}

/** An organization is visible to its members only (else 404); `admin` needs the owner or admin role (else 403). */
export function checkOrganizationAccess<R extends { id: string; callerRole: OrganizationRole | null }>(
  row: R | undefined,
  level: "read" | "admin",
): R & { callerRole: OrganizationRole } {
  if (!row || row.callerRole === null || outsideResources({ organizationId: row.id })) throw notFound("Organization");
  if (level === "admin" && row.callerRole === "member")
    throw forbidden("This operation needs the organization owner or admin role");
  return row as R & { callerRole: OrganizationRole };
}
