/**
 * The identity area's statement builders (docs/architecture.md, "Services and statements"): they return the query
 * without running it; ./me.ts, ./tokens.ts, ./tokenScopes.ts and ./users.ts run them in their batches.
 */
import { desc, eq, sql, type SQL } from "drizzle-orm";
import { accessTokens, users } from "../../db/schema";
import { projectReadableBy } from "../../auth/access";
import { rawSelect } from "../../db/sql";
import type { Db } from "../../env";

/** Batchable: the user row (`user` an id, or the caller's reference as SQL). */
export function userStatement(db: Db, user: string | SQL) {
  return db.select().from(users).where(eq(users.id, user));
}

/** Batchable: the user's tokens, newest first. */
export function userTokensStatement(db: Db, user: string | SQL) {
  return db.select().from(accessTokens).where(eq(accessTokens.userId, user)).orderBy(desc(accessTokens.createdAt));
}

/** The statement that puts a user's row into a shard database (every shard keeps a copy of every user). */
export function userCopyStatement(db: Db, user: typeof users.$inferSelect) {
  return db.insert(users).values(user).onConflictDoNothing({ target: users.id });
}

/** A row of resourceLookupStatement: what the id names and where it sits. */
interface FoundResource {
  kind: "organization" | "workspace" | "project";
  organizationId: string;
  workspaceId: string | null;
  projectId: string | null;
  workspaces: string | null;
}

/** What one id names for the caller, on the shard that holds it (none: unknown, or not readable by the caller). */
export function resourceLookupStatement(db: Db, user: string, id: string) {
  return rawSelect<FoundResource>(
    db,
    ["kind", "organizationId", "workspaceId", "projectId", "workspaces"],
    sql`SELECT 'organization' AS kind, o.id AS organizationId, NULL AS workspaceId, NULL AS projectId,
        (SELECT json_group_array(w.id) FROM workspaces w WHERE w.organization_id = o.id) AS workspaces
      FROM organizations o WHERE o.id = ${id}
        AND EXISTS (SELECT 1 FROM organization_members m WHERE m.organization_id = o.id AND m.user_id = ${user})
      UNION ALL
      SELECT 'workspace', w.organization_id, w.id, NULL, NULL FROM workspaces w WHERE w.id = ${id}
        AND EXISTS (SELECT 1 FROM workspace_collaborators wc WHERE wc.workspace_id = w.id AND wc.user_id = ${user})
      UNION ALL
      SELECT 'project', w.organization_id, p.workspace_id, p.id, NULL FROM projects p
        JOIN workspaces w ON w.id = p.workspace_id
        WHERE p.id = ${id} AND ${projectReadableBy(user, sql`p.id`)}`,
  );
}
