/**
 * Who may read, change and run an automation (docs/api-guide.md › Concepts): the project's read rule of access.ts
 * for reading, the automation's owner or a project admin for changing.
 */
import { and, eq, sql, type SQL } from "drizzle-orm";
import type { AuthUser, Db } from "../env";
import { automations } from "../db/schema";
import { forbidden, notFound } from "../errors";
import { viaDocumentGrant, WS_ADMIN, WS_EDIT, type AutomationRow, type UserRef, type WorkspaceRole } from "./access";

export type AutomationLevel = "read" | "change" | "run";

export interface AutomationAccess {
  automation: AutomationRow;
  workspaceRole: WorkspaceRole | null;
  /** Owner of the automation or project admin (workspace owner/admin): may change it and see its secret. */
  canChange: boolean;
}

/**
 * Automations (docs/api-guide.md › Concepts; Automations, published portals, collaborative editing): readable with project read (else 404, like a missing one); changed only by
 * their owner or a project admin (403 for anyone else who can read); run by hand by those, or by a workspace
 * owner/admin/editor when `runFromButton` is set. One D1 query.
 */
export async function requireAutomation(
  db: Db,
  user: AuthUser,
  id: string,
  level: AutomationLevel,
): Promise<AutomationAccess> {
  const [row] = await automationAccessQuery(db, user._id, id);
  return checkAutomationAccess(user, row, level);
}

/**
 * The statement behind requireAutomation, for folding into a read batch: `user` may be the caller's SQL reference
 * (batched authentication) and `automationId` a subquery (the automation of a run or a delivery). One table in
 * FROM (the role and the document grant are subqueries), so a D1 batch, which returns rows as objects, loses no
 * member to a name shared by two tables.
 */
export function automationAccessQuery(db: Db, user: UserRef, automationId: string | SQL) {
  return db
    .select({
      automation: automations,
      role: sql<
        string | null
      >`(SELECT wc.role FROM workspace_collaborators wc WHERE wc.workspace_id = "automations"."workspace_id" AND wc.user_id = ${user})`,
      viaDocument: viaDocumentGrant(user, sql`"automations"."project_id"`),
    })
    .from(automations)
    .where(and(sql`"automations"."id" = ${automationId}`, eq(automations.isDeleted, false)));
}

type AutomationAccessRow = { automation: AutomationRow; role: string | null; viaDocument: unknown };

/** 404 (labelled `as`) when missing or unreadable, 403 when the level is not the caller's. */
export function checkAutomationAccess(
  user: AuthUser,
  row: AutomationAccessRow | undefined,
  level: AutomationLevel,
  as = "Automation",
): AutomationAccess {
  if (!row || (row.role === null && !row.viaDocument)) throw notFound(as);
  const role = (row.role as WorkspaceRole | null) ?? null;
  const automation = row.automation;
  const canChange = automation.ownerId === user._id || (role !== null && WS_ADMIN.includes(role));
  if (level === "change" && !canChange) throw forbidden("Only the automation's owner or a project admin can change it");
  if (level === "run" && !canChange && !(automation.runFromButton && role !== null && WS_EDIT.includes(role))) {
    throw forbidden(
      "Only the owner or a project admin can run this automation (or an editor when runFromButton is set)",
    );
  }
  return { automation, workspaceRole: role, canChange };
}
