/**
 * Table references (docs/api-guide.md › Content, snapshots and references): a document's link to a table column (and row). `columnName` and `tableName` are
 * never stored: every read joins the current column and table, so a rename shows at once.
 */
import { and, eq, sql } from "drizzle-orm";
import { columns, rows, tableReferences } from "../../db/schema";
import type { Db } from "../../env";
import { ApiError, conflict, forbidden, notFound, validation, type ErrorDetail } from "../../errors";
import { isUniqueViolation } from "../../db/errors";
import { inJson } from "../../db/sql";
import {
  assembleDocumentsAccess,
  checkDocumentAccess,
  checkProjectAccess,
  documentsAccessStatements,
  documentsAccessStatementsIn,
  projectAccessStatement,
} from "../../auth/access";
import { checkTableAccess, tableAccessStatement } from "../../auth/tableAccess";
import { read, servedHere, type ServiceContext } from "../context";
import { keptAnswerUpdates } from "../idempotency";
import { readBesideOtherShards, readWhereFound } from "../shardReads";
import { withClaimedReferenceId } from "./referenceIds";
import { documentOfReference, referencedProjectReadable, referencesWithNames } from "./queries";

type ReferenceRow = typeof tableReferences.$inferSelect;

type ReferenceWithNames = { ref: ReferenceRow; columnName: string; tableName: string; tableProjectId: string };

function withNames({
  columnName,
  tableName,
  tableProjectId,
  ...ref
}: ReferenceRow & { columnName: string; tableName: string; tableProjectId: string }): ReferenceWithNames {
  return { ref, columnName, tableName, tableProjectId };
}

export function tableReferenceDto({ ref, columnName, tableName }: ReferenceWithNames) {
  return {
    _id: ref.id,
    originId: ref.originId,
    documentId: ref.documentId,
    workspaceId: ref.workspaceId,
    tableId: ref.tableId,
    columnId: ref.columnId,
    relatedRowId: ref.relatedRowId ?? null,
    rowId: ref.rowId ?? null,
    oneToManyColumnId: ref.oneToManyColumnId ?? null,
    oneToManyInstanceIds: ref.oneToManyInstanceIds ?? [],
    columnName,
    tableName,
    type: ref.type,
    createdAt: ref.createdAt,
    updatedAt: ref.updatedAt,
  };
}

export interface NewTableReference {
  _id?: string;
  columnId: string;
  relatedRowId: string | null;
  rowId?: string | null;
  oneToManyColumnId?: string | null;
  oneToManyInstanceIds?: string[];
  type: "relation" | "reference" | "global";
}

/**
 * Needs edit access to the document and read access to the table (both checked in the batch that loads what the
 * reference names). `columnId` and `oneToManyColumnId` must be live columns of the table, `relatedRowId` a live
 * row of it, and `rowId` and `oneToManyInstanceIds` live rows of the same project (400); a reused `_id` is 409.
 * Three D1 round trips with authentication: the names are known from the batch, so nothing is read back.
 */
// eslint-disable-next-line max-lines-per-function -- the reference's access checks across projects, its id claim and its write in one ordered flow
export async function createTableReference(
  ctx: ServiceContext,
  input: NewTableReference & { documentId: string; tableId: string },
) {
  const { db } = ctx;
  const columnIds = [input.columnId, ...(input.oneToManyColumnId ? [input.oneToManyColumnId] : [])];
  // Rows named by the reference must be live rows of this project's tables, so a reference can never become a
  // window onto rows its creator could not read (E5 returns every referenced row with its cells).
  const rowIds = [...new Set([input.rowId, ...(input.oneToManyInstanceIds ?? [])].filter((x): x is string => !!x))];
  // A client-chosen `_id` must be free on every shard database, not only the document's.
  const sameId = (d: Db) =>
    d
      .select({ id: tableReferences.id })
      .from(tableReferences)
      .where(eq(tableReferences.id, input._id ?? ""));
  const first = readBesideOtherShards(
    ctx,
    [
      ...documentsAccessStatements(db, ctx.user.ref, [input.documentId]),
      tableAccessStatement(db, ctx.user.ref, input.tableId),
      db
        .select({ id: columns.id, name: columns.name })
        .from(columns)
        .where(and(eq(columns.tableId, input.tableId), eq(columns.isDeleted, false), inJson(columns.id, columnIds))),
      db
        .select({ id: rows.id })
        .from(rows)
        .where(and(eq(rows.id, input.relatedRowId ?? ""), eq(rows.tableId, input.tableId), eq(rows.isDeleted, false))),
      db
        .select({ id: tableReferences.id })
        .from(tableReferences)
        .where(eq(tableReferences.id, input._id ?? "")),
      db
        .select({ id: rows.id })
        .from(rows)
        .where(
          and(
            eq(rows.projectId, sql`(SELECT project_id FROM tables WHERE id = ${input.tableId})`),
            eq(rows.isDeleted, false),
            sql`EXISTS (SELECT 1 FROM tables t WHERE t.id = ${rows.tableId} AND t.is_deleted = 0)`,
            inJson(rows.id, rowIds),
          ),
        ),
    ],
    sameId,
  );
  // A client-chosen `_id` is claimed in the directory beside the first read (docs/scaling.md "Reference ids"); the
  // other shards are still asked, for references made before the directory kept ids and not yet claimed by the repair.
  const claim = { kind: "table" as const, id: input._id, documentId: input.documentId };
  return withClaimedReferenceId(
    ctx,
    claim,
    first,
    async ([[docs, wsRoles, docRoles, [tableRow], cols, related, existing, projectRows], elsewhere], held) => {
      // Existence and read access of both records before the role (docs/api-guide.md › Conventions): a viewer naming a missing table gets 404.
      const docAccess = checkDocumentAccess(
        assembleDocumentsAccess([docs, wsRoles, docRoles]).get(input.documentId),
        "read",
      );
      const { table } = checkTableAccess(tableRow, "read");
      const { doc } = checkDocumentAccess(docAccess, "edit");
      const liveRows = new Set(projectRows.map((r) => r.id));
      const live = new Set(cols.map((c) => c.id));
      const details: ErrorDetail[] = [];
      if (!live.has(input.columnId)) details.push({ path: "columnId", message: "not a column of this table" });
      if (input.oneToManyColumnId && !live.has(input.oneToManyColumnId))
        details.push({ path: "oneToManyColumnId", message: "not a column of this table" });
      if (input.relatedRowId !== null && related.length === 0)
        details.push({ path: "relatedRowId", message: "not a row of this table" });
      if (input.rowId && !liveRows.has(input.rowId))
        details.push({ path: "rowId", message: "not a row of this project" });
      (input.oneToManyInstanceIds ?? []).forEach((id, i) => {
        if (!liveRows.has(id))
          details.push({ path: `oneToManyInstanceIds.${i}`, message: "not a row of this project" });
      });
      if (details.length)
        throw validation(
          `Invalid table reference: ${details.map((d) => `${d.path}: ${d.message}`).join("; ")}`,
          details,
        );
      if (held || existing.length || (input._id && elsewhere.some((found) => found.length)))
        throw conflict(`A table reference with _id ${input._id} already exists`);
      const t = ctx.now;
      const id = input._id ?? ctx.ids.beside(input.documentId);
      const ref: ReferenceRow = {
        id,
        originId: "",
        documentId: doc.id,
        workspaceId: doc.workspaceId,
        tableId: table.id,
        columnId: input.columnId,
        relatedRowId: input.relatedRowId,
        rowId: input.rowId ?? null,
        oneToManyColumnId: input.oneToManyColumnId ?? null,
        oneToManyInstanceIds: input.oneToManyInstanceIds ?? [],
        type: input.type,
        isDeleted: false,
        createdAt: t,
        updatedAt: t,
      };
      const columnName = cols.find((c) => c.id === input.columnId)!.name;
      const dto = tableReferenceDto({ ref, columnName, tableName: table.name, tableProjectId: table.projectId });
      try {
        // A keyed request's answer commits with the reference (services/idempotency.ts), so a crash cannot part them.
        await db.batch([
          db.insert(tableReferences).values(ref),
          ...(await keptAnswerUpdates(ctx, { payload: { data: dto } })),
        ]);
      } catch (err) {
        if (isUniqueViolation(err, "table_references.id"))
          throw conflict(`A table reference with _id ${id} already exists`);
        throw err;
      }
      return dto;
    },
  );
}

/**
 * E1 in one D1 round trip with authentication: the reference with its live names, its document's access and the
 * referenced table's project access. 404 when the reference is missing, deleted or its document unreadable; 403
 * when the caller can read the document but not the referenced table's project (names and ids' meaning withheld).
 */
export async function getTableReference(ctx: ServiceContext, { id }: { id: string }) {
  // The `_id` may be the client's and name no shard: every shard database is asked at once.
  const [[[found], docs, wsRoles, docRoles, [project]]] = await readWhereFound(
    ctx,
    (db) => [
      referencesWithNames(db, and(eq(tableReferences.id, id), servedHere("table_references.workspace_id"))),
      ...documentsAccessStatementsIn(db, ctx.user.ref, documentOfReference(id)),
      projectAccessStatement(
        db,
        ctx.user.ref,
        sql`(SELECT t.project_id FROM table_references r JOIN tables t ON t.id = r.table_id WHERE r.id = ${id})`,
      ),
    ],
    ([rows]) => rows.length > 0,
  );
  if (!found) throw notFound("Table reference");
  checkDocumentAccess(assembleDocumentsAccess([docs, wsRoles, docRoles]).get(found.documentId), "read", {
    as: "Table reference",
  });
  try {
    checkProjectAccess(project, "read");
  } catch (err) {
    if (err instanceof ApiError && err.code === "NotFoundError")
      throw forbidden("You can read the document but not the referenced table");
    throw err;
  }
  return tableReferenceDto(withNames(found));
}

/** Deletes a reference (edit access to its document; 404 alike for missing and unreadable). Two round trips. */
export async function deleteTableReference(ctx: ServiceContext, { id }: { id: string }): Promise<void> {
  const [[[found], docs, wsRoles, docRoles], there] = await readWhereFound(
    ctx,
    (db) => [
      referencesWithNames(db, and(eq(tableReferences.id, id), servedHere("table_references.workspace_id"))),
      ...documentsAccessStatementsIn(db, ctx.user.ref, documentOfReference(id)),
    ],
    ([rows]) => rows.length > 0,
  );
  if (!found) throw notFound("Table reference");
  checkDocumentAccess(assembleDocumentsAccess([docs, wsRoles, docRoles]).get(found.documentId), "edit", {
    as: "Table reference",
  });
  await there.db
    .update(tableReferences)
    .set({ isDeleted: true, updatedAt: there.now })
    .where(eq(tableReferences.id, id));
}

/**
 * A document's live references whose tables the caller can read, oldest first (read access to the document, else
 * 404). One D1 round trip with authentication: the project rule is part of the listing's SQL.
 */
export async function listTableReferences(ctx: ServiceContext, { documentId }: { documentId: string }) {
  const [docs, wsRoles, docRoles, found] = await read(ctx, [
    ...documentsAccessStatements(ctx.db, ctx.user.ref, [documentId]),
    referencesWithNames(
      ctx.db,
      and(eq(tableReferences.documentId, documentId), referencedProjectReadable(ctx.user.ref)),
    ),
  ]);
  checkDocumentAccess(assembleDocumentsAccess([docs, wsRoles, docRoles]).get(documentId), "read");
  return found.map((f) => tableReferenceDto(withNames(f)));
}

/** Live references (with live names) of many documents in one query, oldest first; access is the caller's. */
export async function tableReferencesOfDocuments(
  ctx: ServiceContext,
  documentIds: readonly string[],
): Promise<ReferenceWithNames[]> {
  return (await referencesWithNames(ctx.db, inJson(tableReferences.documentId, documentIds))).map(withNames);
}
