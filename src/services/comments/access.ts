/**
 * Who may do what with comments (docs/api-guide.md › Comments): a comment follows its target. On a document: read
 * with document read, comment with the commenter role or above (src/auth/access.ts). On a row: read with its
 * table's read, comment with a workspace role of commenter or above. A project admin (workspace owner or admin)
 * may delete anyone's comment. Everything is read in the batch of the operation's first read.
 */
import { and, eq, sql, type SQL } from "drizzle-orm";
import {
  assembleDocumentsAccess,
  checkDocumentAccess,
  documentsAccessStatementsIn,
  WS_ADMIN,
  WS_COMMENT,
  type WorkspaceRole,
} from "../../auth/access";
import { checkTableAccess, tableAccessStatement, type TableAccessRow } from "../../auth/tableAccess";
import { columns, comments, documents, rows } from "../../db/schema";
import { forbidden, notFound } from "../../errors";
import type { Db } from "../../env";
import type { UserRef } from "../../auth/access";
import type { CommentRow } from "./dto";

export type CommentLevel = "read" | "comment";

/** What a comment's target is, once its access is checked. */
export interface TargetAccess {
  workspaceId: string;
  projectId: string;
  documentId: string | null;
  tableId: string | null;
  rowId: string | null;
  /** Documents the target is "in", for event filters: the document or its parent folder, the table's document. */
  documentIds: string[];
  projectAdmin: boolean;
}

/** The access statements of a target named by SQL (`docIds` one column of document ids, `tableId` a scalar). */
export function targetAccessStatements(db: Db, user: UserRef, docIds: SQL, tableId: SQL, rowId: SQL) {
  return [
    ...documentsAccessStatementsIn(db, user, docIds),
    tableAccessStatement(db, user, tableId),
    db
      .select({ id: rows.id })
      .from(rows)
      .where(and(sql`${rows.id} = ${rowId}`, eq(rows.isDeleted, false))),
  ] as const;
}

type AccessResults = [
  (typeof documents.$inferSelect)[],
  { workspaceId: string; role: string }[],
  { id: string; roles: string }[],
  TableAccessRow[],
  { id: string }[],
];

/** The rule applied to the results of targetAccessStatements; `as` names what a refusal calls absent. */
export function checkTarget(
  results: AccessResults,
  target: { documentId: string | null; rowId: string | null },
  level: CommentLevel,
  as: string,
): TargetAccess {
  const [docs, wsRoles, docRoles, [tableRow], liveRow] = results;
  if (target.documentId) {
    const access = assembleDocumentsAccess([docs, wsRoles, docRoles]).get(target.documentId);
    const { doc, workspaceRole } = checkDocumentAccess(access, level, { as });
    return {
      workspaceId: doc.workspaceId,
      projectId: doc.projectId,
      documentId: doc.id,
      tableId: null,
      rowId: null,
      documentIds: [doc.id, ...(doc.parentId ? [doc.parentId] : [])],
      projectAdmin: workspaceRole !== null && WS_ADMIN.includes(workspaceRole),
    };
  }
  const { table, workspaceRole } = checkTableAccess(tableRow, "read", { as });
  if (!target.rowId || liveRow.length === 0) throw notFound(as);
  if (level === "comment" && !(workspaceRole && WS_COMMENT.includes(workspaceRole)))
    throw forbidden("Commenting on rows needs a workspace role of commenter or above");
  return {
    workspaceId: table.workspaceId,
    projectId: table.projectId,
    documentId: null,
    tableId: table.id,
    rowId: target.rowId,
    documentIds: table.documentId ? [table.documentId] : [],
    projectAdmin: workspaceRole !== null && WS_ADMIN.includes(workspaceRole as WorkspaceRole),
  };
}

/** The statements of a new thread's target: a document, or a row (and the column, when one is named). */
export function newTargetStatements(
  db: Db,
  user: UserRef,
  target: { documentId: string } | { rowId: string; columnId?: string },
) {
  if ("documentId" in target)
    return [
      ...targetAccessStatements(db, user, sql`SELECT ${target.documentId}`, sql`NULL`, sql`NULL`),
      db
        .select({ id: columns.id })
        .from(columns)
        .where(sql`0`),
    ] as const;
  const tableOfRow = sql`(SELECT table_id FROM rows WHERE id = ${target.rowId})`;
  return [
    ...targetAccessStatements(db, user, sql`SELECT NULL WHERE 0`, tableOfRow, sql`${target.rowId}`),
    db
      .select({ id: columns.id })
      .from(columns)
      .where(
        and(
          eq(columns.id, target.columnId ?? ""),
          sql`${columns.tableId} = ${tableOfRow}`,
          eq(columns.isDeleted, false),
        ),
      ),
  ] as const;
}

/** The statements of an existing comment: the comment and its target's access. */
export function commentStatements(db: Db, user: UserRef, commentId: string) {
  const of = (column: string) => sql.raw(`(SELECT ${column} FROM comments WHERE id = `).append(sql`${commentId})`);
  return [
    db.select().from(comments).where(eq(comments.id, commentId)),
    ...targetAccessStatements(
      db,
      user,
      sql`SELECT document_id FROM comments WHERE id = ${commentId} AND document_id IS NOT NULL`,
      of("table_id"),
      of("row_id"),
    ),
  ] as const;
}

/** The comment and its target's access checked at `level`; a missing comment is 404 like an unreadable one. */
export function checkComment(
  [found, ...access]: [CommentRow[], ...AccessResults],
  level: CommentLevel,
): { comment: CommentRow; target: TargetAccess } {
  const comment = found[0];
  if (!comment) throw notFound("Comment");
  const target = checkTarget(access, comment, level, "Comment");
  return { comment, target };
}
