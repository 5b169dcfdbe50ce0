/**
 * The workspaces area's statement builders (docs/architecture.md, "Services and statements"): they return the query
 * without running it; ./workspaces puts them in its batches.
 */
import { sql, type SQL } from "drizzle-orm";
import { inJson } from "../../db/sql";
import { workspaceCollaborators } from "../../db/schema";
import type { Db } from "../../env";

/** Batchable: the collaborators of the listed workspaces (or of those `ids` selects as SQL), oldest first. */
export function workspaceCollaboratorsStatement(db: Db, ids: readonly string[] | SQL) {
  return db
    .select()
    .from(workspaceCollaborators)
    .where(
      Array.isArray(ids)
        ? inJson(workspaceCollaborators.workspaceId, ids as string[])
        : sql`${workspaceCollaborators.workspaceId} IN (${ids})`,
    )
    .orderBy(workspaceCollaborators.createdAt);
}
