/**
 * Every access rule of docs/api-guide.md › Concepts lives here; routes call these next to the data they protect.
 * "No access looks like absence": a record the caller cannot read raises NotFoundError, exactly as a
 * missing one does; a readable record whose role forbids the operation raises ForbiddenError.
 * Automations' and organizations' rules are in automationAccess.ts and organizationAccess.ts.
 */
import { and, eq, getTableColumns, sql, type SQL } from "drizzle-orm";
import type { SQLiteColumn } from "drizzle-orm/sqlite-core";
import type { Db } from "../env";
import { automations, documents, projects, tables, workspaceCollaborators, workspaces } from "../db/schema";
import { ApiError, forbidden, notFound } from "../errors";
import { inJson, rawSelect } from "../db/sql";
import { outsideResources } from "./tokenLimits";

export type WorkspaceRole = "owner" | "admin" | "editor" | "commenter" | "viewer";
export type DocumentRole = "owner" | "editor" | "commenter" | "viewer";
export type DocumentRow = typeof documents.$inferSelect;
export type ProjectRow = typeof projects.$inferSelect;
export type WorkspaceRow = typeof workspaces.$inferSelect;
export type TableRow = typeof tables.$inferSelect;
export type AutomationRow = typeof automations.$inferSelect;

export const WS_EDIT: readonly WorkspaceRole[] = ["owner", "admin", "editor"];
export const WS_ADMIN: readonly WorkspaceRole[] = ["owner", "admin"];
const DOC_EDIT: readonly DocumentRole[] = ["owner", "editor"];
/** Roles that may comment (docs/api-guide.md › Comments): `commenter` reads and comments, editors and above too. */
export const WS_COMMENT: readonly WorkspaceRole[] = ["owner", "admin", "editor", "commenter"];
const DOC_COMMENT: readonly DocumentRole[] = ["owner", "editor", "commenter"];
/** Folder nesting deeper than this is refused on create/move, so ancestor walks are bounded. */
export const MAX_FOLDER_DEPTH = 64;

export interface DocumentAccess {
  doc: DocumentRow;
  workspaceRole: WorkspaceRole | null;
  /** Roles granted on the document itself or any ancestor folder. */
  documentRoles: DocumentRole[];
  canRead: boolean;
  canEdit: boolean;
  /** May comment: workspace owner/admin/editor/commenter, or document/ancestor owner/editor/commenter. */
  canComment: boolean;
  /** Owner of the document (or an ancestor), or workspace owner/admin. */
  isOwner: boolean;
}

function summarize(
  doc: DocumentRow,
  workspaceRole: WorkspaceRole | null,
  documentRoles: DocumentRole[],
): DocumentAccess {
  // A scoped token limited to other resources has no rights here (src/auth/tokenLimits.ts): no access looks like absence.
  if (outsideResources(doc))
    return {
      doc,
      workspaceRole: null,
      documentRoles: [],
      canRead: false,
      canEdit: false,
      canComment: false,
      isOwner: false,
    };
  const canRead = workspaceRole !== null || documentRoles.length > 0;
  const canEdit =
    (workspaceRole !== null && WS_EDIT.includes(workspaceRole)) || documentRoles.some((r) => DOC_EDIT.includes(r));
  const canComment =
    (workspaceRole !== null && WS_COMMENT.includes(workspaceRole)) ||
    documentRoles.some((r) => DOC_COMMENT.includes(r));
  const isOwner = (workspaceRole !== null && WS_ADMIN.includes(workspaceRole)) || documentRoles.includes("owner");
  return { doc, workspaceRole, documentRoles, canRead, canEdit, canComment, isOwner };
}

/** The caller in access statements: a user id, or SQL naming the caller (`ctx.user.ref`, before authentication completes). */
export type UserRef = string | SQL;

/**
 * The statements that decide one user's access to many documents, for a D1 batch (whatever the number of ids):
 * the documents, the user's workspace roles, and the document roles found by walking up each ancestor chain.
 * `assembleDocumentsAccess` turns their results into the map `documentsAccess` returns.
 */
export function documentsAccessStatements(db: Db, user: UserRef, ids: readonly string[]) {
  return documentsAccessStatementsIn(db, user, sql`SELECT value FROM json_each(${JSON.stringify([...new Set(ids)])})`);
}

/**
 * `documentsAccessStatements` for the documents a SELECT names (`idsQuery` yields one column of document ids), so a
 * child record and its document's access ride in one batch before the document id is known: e.g.
 * sql`SELECT document_id FROM snapshots WHERE id = ${snapshotId}`.
 */
export function documentsAccessStatementsIn(db: Db, user: UserRef, idsQuery: SQL) {
  return [
    db
      .select()
      .from(documents)
      .where(sql`${documents.id} IN (${idsQuery})`),
    db
      .select({ workspaceId: workspaceCollaborators.workspaceId, role: workspaceCollaborators.role })
      .from(workspaceCollaborators)
      .where(
        and(
          eq(workspaceCollaborators.userId, user),
          sql`${workspaceCollaborators.workspaceId} IN (SELECT workspace_id FROM documents WHERE id IN (${idsQuery}))`,
        ),
      ),
    rawSelect<{ id: string; roles: string }>(
      db,
      ["id", "roles"],
      sql`
      WITH RECURSIVE chain(start_id, id, parent_id, depth) AS (
        SELECT d.id, d.id, d.parent_id, 0 FROM documents d WHERE d.id IN (${idsQuery})
        UNION ALL
        SELECT c.start_id, d.id, d.parent_id, c.depth + 1 FROM documents d JOIN chain c ON d.id = c.parent_id
        WHERE c.depth < ${MAX_FOLDER_DEPTH + 1}
      )
      SELECT c.start_id AS id, group_concat(dc.role) AS roles
      FROM chain c JOIN document_collaborators dc ON dc.document_id = c.id AND dc.user_id = ${user}
      GROUP BY c.start_id`,
    ),
  ] as const;
}

type AccessResults = [DocumentRow[], { workspaceId: string; role: string }[], { id: string; roles: string }[]];

export function assembleDocumentsAccess([docs, wsRoles, docRoles]: AccessResults): Map<string, DocumentAccess> {
  const out = new Map<string, DocumentAccess>();
  const wsRoleById = new Map(wsRoles.map((r) => [r.workspaceId, r.role as WorkspaceRole]));
  const docRolesById = new Map(docRoles.map((r) => [r.id, r.roles.split(",") as DocumentRole[]]));
  for (const doc of docs) {
    out.set(doc.id, summarize(doc, wsRoleById.get(doc.workspaceId) ?? null, docRolesById.get(doc.id) ?? []));
  }
  return out;
}

/** The access `documentsAccessStatementsIn` loaded for a query naming at most one document (null when none). */
export function soleDocumentAccess(results: AccessResults): DocumentAccess | null {
  return assembleDocumentsAccess(results).values().next().value ?? null;
}

/** Access of one user to many documents in one D1 round trip. Missing ids are absent; deleted documents are included. */
export async function documentsAccess(
  db: Db,
  user: UserRef,
  ids: readonly string[],
): Promise<Map<string, DocumentAccess>> {
  if (ids.length === 0) return new Map();
  return assembleDocumentsAccess((await db.batch(documentsAccessStatements(db, user, ids))) as AccessResults);
}

/**
 * The level check of `requireDocument` on an access already loaded (for services that load access in a larger batch):
 * NotFoundError when missing, deleted (unless `includeDeleted`) or unreadable; ForbiddenError below `level`.
 */
export function checkDocumentAccess(
  access: DocumentAccess | null | undefined,
  level: DocumentLevel,
  opts: { includeDeleted?: boolean; as?: string } = {},
): DocumentAccess {
  if (!access || !access.canRead || (access.doc.isDeleted && !opts.includeDeleted) || outsideResources(access.doc))
    throw notFound(opts.as ?? "Document");
  if (level === "edit" && !access.canEdit) throw forbidden("Editing this document needs the owner or editor role");
  if (level === "comment" && !access.canComment)
    throw forbidden("Commenting on this document needs the commenter, editor or owner role");
  if (level === "owner" && !access.isOwner) throw forbidden("This operation needs the document owner role");
  return access;
}

export type DocumentLevel = "read" | "comment" | "edit" | "owner";

/** Every one of `ids` live and readable (403 naming the first that is not), on an access map already loaded (in a larger batch). */
export function checkReadableDocuments(
  access: Map<string, DocumentAccess>,
  ids: readonly string[],
): Map<string, DocumentAccess> {
  for (const id of ids) {
    const a = access.get(id);
    if (!a || !a.canRead || a.doc.isDeleted || outsideResources(a.doc))
      throw new ApiError("ForbiddenError", `No read access to document ${id}`);
  }
  return access;
}

export type WorkspaceLevel = "read" | "edit" | "admin";

export function checkWorkspaceLevel(role: WorkspaceRole, level: WorkspaceLevel) {
  if (level === "edit" && !WS_EDIT.includes(role))
    throw forbidden("This operation needs the workspace owner, admin or editor role");
  if (level === "admin" && !WS_ADMIN.includes(role))
    throw forbidden("This operation needs the workspace owner or admin role");
}

/*
 * In the statements below, the outer table is named literally ("projects"."id"): Drizzle renders a single-table
 * select's columns unqualified, and an unqualified name inside the subquery would bind to the subquery's own table.
 */

/**
 * The workspace with the caller's role in it (`callerRole` null when not a collaborator), as one batchable
 * statement; `checkWorkspaceAccess` applies the rule to its row.
 */
export function workspaceAccessStatement(db: Db, user: UserRef, id: string | SQL) {
  return db
    .select({
      ...getTableColumns(workspaces),
      callerRole: sql<
        string | null
      >`(SELECT wc.role FROM workspace_collaborators wc WHERE wc.workspace_id = "workspaces"."id" AND wc.user_id = ${user})`.as(
        "caller_role",
      ),
    })
    .from(workspaces)
    .where(eq(workspaces.id, id));
}

type WorkspaceAccessRow = WorkspaceRow & { callerRole: string | null };

/** A workspace is visible to its collaborators only (else 404); `level` is checked against the role (else 403). */
export function checkWorkspaceAccess(
  row: WorkspaceAccessRow | undefined,
  level: WorkspaceLevel,
): { workspace: WorkspaceRow; role: WorkspaceRole } {
  if (!row || row.callerRole === null || outsideResources({ ...row, workspaceId: row.id })) throw notFound("Workspace");
  const { callerRole, ...workspace } = row;
  const role = callerRole as WorkspaceRole;
  checkWorkspaceLevel(role, level);
  return { workspace, role };
}

export interface ProjectAccess {
  project: ProjectRow;
  /** null when the project is readable only through document grants. */
  workspaceRole: WorkspaceRole | null;
}

/** SQL: the user reaches the project through a grant on one of its live documents (docs/api-guide.md › Concepts). */
export function viaDocumentGrant(userId: UserRef, projectId: SQL | SQLiteColumn) {
  return sql<number>`EXISTS (SELECT 1 FROM document_collaborators dc JOIN documents d ON d.id = dc.document_id
        WHERE dc.user_id = ${userId} AND d.project_id = ${projectId} AND d.is_deleted = 0)`;
}

/**
 * The project with the caller's workspace role and whether a document grant reaches it, as one batchable
 * statement (`id` may be SQL, e.g. a document's project); `checkProjectAccess` applies the rule to its row.
 */
export function projectAccessStatement(db: Db, user: UserRef, id: string | SQL) {
  return db
    .select({
      ...getTableColumns(projects),
      callerRole: sql<
        string | null
      >`(SELECT wc.role FROM workspace_collaborators wc WHERE wc.workspace_id = "projects"."workspace_id" AND wc.user_id = ${user})`.as(
        "caller_role",
      ),
      viaDocument: sql<number>`${viaDocumentGrant(user, sql`"projects"."id"`)}`.as("via_document"),
    })
    .from(projects)
    .where(eq(projects.id, id));
}

type ProjectAccessRow = ProjectRow & { callerRole: string | null; viaDocument: number | boolean };

export type ProjectLevel = "read" | "write" | "admin";

/**
 * A project is readable through its workspace or through any readable document inside it; writing to
 * it (tables, rows, cells, columns, documents at its root) needs workspace owner/admin/editor,
 * and `admin` needs workspace owner/admin.
 */
export function checkProjectAccess(
  row: ProjectAccessRow | undefined,
  level: ProjectLevel,
  opts: { as?: string } = {},
): ProjectAccess {
  if (!row || (row.callerRole === null && !row.viaDocument) || outsideResources({ ...row, projectId: row.id }))
    throw notFound(opts.as ?? "Project");
  const { callerRole, viaDocument: _via, ...project } = row;
  const role = (callerRole as WorkspaceRole | null) ?? null;
  if (level !== "read") {
    if (role === null) throw forbidden("This operation needs a workspace role");
    checkWorkspaceLevel(role, level === "write" ? "edit" : "admin");
  }
  return { project, workspaceRole: role };
}

/** The statement behind readableProjectIds, for folding into a read batch (`user` may be the caller's SQL reference). */
export function readableProjectsStatement(db: Db, user: UserRef, ids: readonly string[]) {
  return db
    .select({ id: projects.id })
    .from(projects)
    .where(
      and(
        inJson(projects.id, ids),
        sql`(EXISTS (SELECT 1 FROM workspace_collaborators wc WHERE wc.workspace_id = "projects"."workspace_id" AND wc.user_id = ${user})
          OR ${viaDocumentGrant(user, projects.id)})`,
      ),
    );
}

/**
 * SQL: `user` can read the project `projectId` (the project read rule of readableProjectsStatement, as a condition
 * on columns of an enclosing query, e.g. an automation's owner and the project its trigger watches).
 */
export function projectReadableBy(user: UserRef, projectId: SQL) {
  return sql<number>`EXISTS (SELECT 1 FROM projects rp WHERE rp.id = ${projectId} AND (
    EXISTS (SELECT 1 FROM workspace_collaborators wc WHERE wc.workspace_id = rp.workspace_id AND wc.user_id = ${user})
    OR ${viaDocumentGrant(user, sql`rp.id`)}))`;
}

/** Projects among `ids` the user can read (the project read rule), in one query whatever their number. */
export async function readableProjectIds(db: Db, userId: string, ids: readonly string[]): Promise<Set<string>> {
  if (ids.length === 0) return new Set();
  const found = await readableProjectsStatement(db, userId, ids);
  return new Set(found.map((f) => f.id));
}

/** Batchable: the caller's workspace role (one row, or none when not a collaborator). */
export function workspaceRoleStatement(db: Db, user: UserRef, workspaceId: string) {
  return db
    .select({ role: workspaceCollaborators.role })
    .from(workspaceCollaborators)
    .where(and(eq(workspaceCollaborators.workspaceId, workspaceId), eq(workspaceCollaborators.userId, user)));
}

/**
 * The one relabelling helper: a record reached through its document (a snapshot, a clause reference, an audio
 * file…) answers exactly as its own absence would when the document is missing or unreadable.
 */
export async function notFoundAs<T>(what: string, work: Promise<T>): Promise<T> {
  try {
    return await work;
  } catch (err) {
    if (err instanceof ApiError && err.code === "NotFoundError") throw notFound(what);
    throw err;
  }
}
