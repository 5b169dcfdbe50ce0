/**
 * The read rules of access.ts over many records at once, as SQL for one statement that filters a set of records
 * (search over its index): one place defines who reads what, whether a service checks one record or a page of them.
 */
import { sql, type SQL } from "drizzle-orm";
import type { Db } from "../env";
import { rawSelect } from "../db/sql";
import { MAX_FOLDER_DEPTH, type UserRef } from "./access";

/**
 * SQL: the recursive common table expression `name(id, depth)`: the documents granted to `user` and every document
 * below a granted folder (the document rule's grant half), the grants narrowed to a project when `projectId` is given.
 */
export function grantedDocumentsCte(name: string, user: UserRef, projectId?: string): SQL {
  const cte = sql.raw(name);
  const grants = projectId
    ? sql`SELECT dc.document_id, 0 FROM document_collaborators dc JOIN documents d ON d.id = dc.document_id
      WHERE dc.user_id = ${user} AND d.project_id = ${projectId}`
    : sql`SELECT dc.document_id, 0 FROM document_collaborators dc WHERE dc.user_id = ${user}`;
  return sql`${cte}(id, depth) AS (
      ${grants}
      UNION
      SELECT d.id, g.depth + 1 FROM documents d JOIN ${cte} g ON d.parent_id = g.id WHERE g.depth < ${MAX_FOLDER_DEPTH + 1})`;
}

/** Batchable: ids of the documents in a project the user can read through document grants (self or ancestor). */
export function documentIdsGrantedInProjectStatement(db: Db, user: UserRef, projectId: string) {
  return rawSelect<{ id: string }>(
    db,
    ["id"],
    sql`WITH RECURSIVE ${grantedDocumentsCte("granted", user, projectId)} SELECT DISTINCT id AS id FROM granted`,
  );
}

/**
 * The caller's reach over many records at once, for a statement that filters a set of records by the rules above
 * (search): common table expressions for a `WITH RECURSIVE`, each named `reach_…`:
 * - `reach_workspaces(id)`: the workspaces `user` collaborates on;
 * - `reach_documents(id, depth)`: the documents granted to `user`, and every document below a granted folder;
 * - `reach_projects(id)`: the projects holding a live document granted to `user` (viaDocumentGrant's rule).
 * `documentInReach` and `projectInReach` are the document and project read rules over them.
 */
export function readerReachCtes(user: UserRef): SQL {
  const me = sql`(SELECT id FROM reach_user)`;
  return sql`
      reach_user(id) AS (SELECT ${user}),
      reach_workspaces(id) AS (SELECT workspace_id FROM workspace_collaborators WHERE user_id = ${me}),
      ${grantedDocumentsCte("reach_documents", me)},
      reach_projects(id) AS (
        SELECT DISTINCT d.project_id FROM document_collaborators dc JOIN documents d ON d.id = dc.document_id
        WHERE dc.user_id = ${me} AND d.is_deleted = 0)`;
}

/** SQL, within readerReachCtes: the document (its workspace and id) is readable — through its workspace or a grant on it or an ancestor folder. */
export function documentInReach(workspaceId: SQL, documentId: SQL): SQL {
  return sql`(${workspaceId} IN reach_workspaces OR ${documentId} IN (SELECT id FROM reach_documents))`;
}

/** SQL, within readerReachCtes: the project (its workspace and id) is readable — through its workspace or a grant on one of its live documents. */
export function projectInReach(workspaceId: SQL, projectId: SQL): SQL {
  return sql`(${workspaceId} IN reach_workspaces OR ${projectId} IN reach_projects)`;
}
