/**
 * The projects area's statement builders (docs/architecture.md, "Services and statements"): they return the query
 * without running it; ./projects.ts runs them in its read batches.
 */
import { and, eq, or, sql, type SQL } from "drizzle-orm";
import { viaDocumentGrant } from "../../auth/access";
import { projects } from "../../db/schema";
import type { Db } from "../../env";

/**
 * Batchable (E12): the workspace's projects the user can read, oldest first: every one for a collaborator of the
 * workspace, else those in which a document grant reaches a live document.
 */
export function readableProjectsStatement(db: Db, user: SQL, workspaceId: string) {
  return db
    .select()
    .from(projects)
    .where(
      and(
        eq(projects.workspaceId, workspaceId),
        or(
          sql`EXISTS (SELECT 1 FROM workspace_collaborators wc WHERE wc.workspace_id = ${workspaceId} AND wc.user_id = ${user})`,
          viaDocumentGrant(user, sql`"projects"."id"`),
        ),
      ),
    )
    .orderBy(projects.createdAt);
}
