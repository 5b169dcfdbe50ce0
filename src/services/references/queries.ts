/**
 * The references area's statement builders (docs/architecture.md, "Services and statements"): they return the query
 * or the SQL without running it; ./tableReferences.ts and ./clauseReferences.ts put them in their read batches.
 */
import { and, asc, eq, getTableColumns, sql, type SQL } from "drizzle-orm";
import { clauseReferences, tableReferences } from "../../db/schema";
import { viaDocumentGrant, type UserRef } from "../../auth/access";
import type { Db } from "../../env";
import { servedHere } from "../context";

/**
 * Live references with the current names of their live table and column. One table's columns plus aliased
 * subqueries, so it can ride in a D1 batch (which returns rows as objects: joined tables sharing `name` or
 * `project_id` would lose members).
 */
export function referencesWithNames(db: Db, where: SQL | undefined) {
  return db
    .select({
      ...getTableColumns(tableReferences),
      columnName: sql<string>`(SELECT k.name FROM columns k WHERE k.id = ${tableReferences.columnId})`.as(
        "ref_column_name",
      ),
      tableName: sql<string>`(SELECT t.name FROM tables t WHERE t.id = ${tableReferences.tableId})`.as(
        "ref_table_name",
      ),
      tableProjectId: sql<string>`(SELECT t.project_id FROM tables t WHERE t.id = ${tableReferences.tableId})`.as(
        "ref_table_project_id",
      ),
    })
    .from(tableReferences)
    .where(
      and(
        where,
        eq(tableReferences.isDeleted, false),
        sql`EXISTS (SELECT 1 FROM tables t WHERE t.id = ${tableReferences.tableId} AND t.is_deleted = 0)`,
        sql`EXISTS (SELECT 1 FROM columns k WHERE k.id = ${tableReferences.columnId} AND k.is_deleted = 0)`,
      ),
    )
    .orderBy(asc(tableReferences.createdAt), asc(tableReferences.id));
}

/** The document of a reference, as the JSON id list access statements take (same batch as the reference). */
export const documentOfReference = (id: string) => sql`SELECT document_id FROM table_references WHERE id = ${id}`;

/** SQL: the user can read the project of the reference's table (the project read rule of src/auth/access.ts). */
export function referencedProjectReadable(user: UserRef) {
  const projectId = sql`(SELECT t.project_id FROM tables t WHERE t.id = ${tableReferences.tableId})`;
  return sql`(EXISTS (SELECT 1 FROM workspace_collaborators wc JOIN projects p ON p.workspace_id = wc.workspace_id
      WHERE p.id = ${projectId} AND wc.user_id = ${user}) OR ${viaDocumentGrant(user, projectId)})`;
}

/** The document of a clause reference, as the JSON id list access statements take (same batch as the reference). */
export const documentOfClause = (id: string) => sql`SELECT document_id FROM clause_references WHERE id = ${id}`;

/** Batchable: the live clause reference `id` when this database serves its workspace (no row otherwise). */
export function liveClauseReferenceStatement(db: Db, id: string) {
  return db
    .select()
    .from(clauseReferences)
    .where(
      and(
        eq(clauseReferences.id, id),
        eq(clauseReferences.isDeleted, false),
        servedHere("clause_references.workspace_id"),
      ),
    );
}

/** Batchable: a document's live clause references, oldest first. */
export function documentClauseReferencesStatement(db: Db, documentId: string) {
  return db
    .select()
    .from(clauseReferences)
    .where(and(eq(clauseReferences.documentId, documentId), eq(clauseReferences.isDeleted, false)))
    .orderBy(asc(clauseReferences.createdAt), asc(clauseReferences.id));
}
