import { and, eq, isNull, sql } from "drizzle-orm";
import { documentCollaborators, documents, type DocumentType } from "../../db/schema";
import type { Db } from "../../env";
import { insertWhere } from "../../db/sql";
import { conflict, notFound, validation } from "../../errors";
import type { ServiceContext } from "../context";
import { MAX_FOLDER_DEPTH, type ProjectRow } from "../../auth/access";
import type { Emoji, Icon } from "../../db/schema";
import { inSubtree, subtreeSql } from "./tree";
import { d1Of, statement } from "../../db/d1";
import { asStatements, documentStateEntriesQuery } from "../changes/recordLog";

type DocumentRow = typeof documents.$inferSelect;

export interface NewDocument {
  parentId?: string | null;
  name: string;
  type: DocumentType;
  description?: string;
  reference?: string;
  order?: number;
  icon?: Icon | null;
  emoji?: Emoji | null;
  external?: DocumentRow["external"];
  id?: string;
}

function siblingsOf(projectId: string, parentId: string | null) {
  return and(
    eq(documents.projectId, projectId),
    parentId === null ? isNull(documents.parentId) : eq(documents.parentId, parentId),
  );
}

/** Batchable: one row whose `next` is the next free `order` among siblings, so a new document lands last. */
export function nextOrderStatement(db: Db, projectId: string, parentId: string | null) {
  return db
    .select({ next: sql<number>`COALESCE(MAX(${documents.order}), -1) + 1`.as("next_order") })
    .from(documents)
    .where(siblingsOf(projectId, parentId));
}

async function nextOrder(db: Db, projectId: string, parentId: string | null) {
  const [row] = await nextOrderStatement(db, projectId, parentId);
  return row?.next ?? 0;
}

/**
 * A parent must be a live FOLDER of the same project and not so deep that walks stop being bounded.
 * `chainLength` is the number of ids from the parent up to the root (the parent included).
 */
export function assertParentFolder(projectId: string, parent: DocumentRow | undefined, chainLength: number) {
  if (!parent || parent.isDeleted) throw notFound("Parent folder");
  if (parent.projectId !== projectId)
    throw validation("The parent must belong to the same project", [
      { path: "parentId", message: "not in this project" },
    ]);
  if (parent.type !== "FOLDER")
    throw validation("The parent must be a FOLDER", [{ path: "parentId", message: "not a folder" }]);
  if (chainLength >= MAX_FOLDER_DEPTH)
    throw validation(`Folders nest at most ${MAX_FOLDER_DEPTH} deep`, [{ path: "parentId", message: "too deep" }]);
}

/** Statements that create a document with its creator as `owner`; the caller runs them (possibly in a larger batch). */
export async function prepareCreateDocument(
  ctx: ServiceContext,
  { project, document: input }: { project: ProjectRow; document: NewDocument },
) {
  const { db, now: t } = ctx;
  const userId = ctx.user.id;
  const parentId = input.parentId ?? null;
  const row: DocumentRow = {
    id: input.id ?? ctx.ids.beside(project.id),
    projectId: project.id,
    workspaceId: project.workspaceId,
    parentId,
    userId,
    name: input.name,
    type: input.type,
    description: input.description ?? "",
    reference: input.reference ?? "",
    order: input.order ?? (await nextOrder(db, project.id, parentId)),
    isPublished: false,
    publishedSettings: null,
    external: input.external ?? null,
    icon: input.icon ?? null,
    emoji: input.emoji ?? null,
    isDeleted: false,
    deletedAt: null,
    createdAt: t,
    updatedAt: t,
  };
  // Under a folder, the insert names the folder's liveness in the same statement, and the owner grant names the
  // new document: a delete of the folder either comes first (nothing is written, the caller answers 404) or finds
  // the new document in the subtree it deletes (docs/api-guide.md, "HTTP semantics").
  const parentLive = parentId
    ? sql`EXISTS (SELECT 1 FROM ${documents} p WHERE p.id = ${parentId} AND p.is_deleted = 0 AND p.type = 'FOLDER')`
    : sql`1`;
  const statements = [
    insertWhere(db, documents, row, parentLive).returning({ id: documents.id }),
    insertWhere(
      db,
      documentCollaborators,
      { documentId: row.id, userId, role: "owner", createdAt: t },
      documentExists(row.id),
    ),
  ] as const;
  return { row, statements };
}

/** For statements batched after `prepareCreateDocument`'s: true when the document was in fact inserted. */
export function documentExists(documentId: string) {
  return sql`EXISTS (SELECT 1 FROM ${documents} d WHERE d.id = ${documentId})`;
}

/** The create batch's first result: the parent was deleted meanwhile, so nothing was written (404). */
export function assertDocumentInserted(inserted: readonly unknown[]) {
  if (inserted.length === 0) throw notFound("Parent folder");
}

/**
 * Moving `doc` under the folder whose chain to the root is `chain` (ids, the new parent first): under itself or one
 * of its descendants would detach a cycle (409); past the depth limit is 400. `height`: the doc's subtree height.
 */
export function assertMove(doc: DocumentRow, chain: readonly string[], height: number) {
  if (chain.includes(doc.id)) throw conflict("A document cannot be moved into its own subtree");
  if (chain.length + (doc.type === "FOLDER" ? height : 0) >= MAX_FOLDER_DEPTH) {
    throw validation(`Folders nest at most ${MAX_FOLDER_DEPTH} deep`, [{ path: "parentId", message: "too deep" }]);
  }
}

/**
 * Soft-deletes the document and its live subtree, stamping one deletedAt so restore can undo exactly this.
 * The stamp is kept above every earlier deletion in the subtree: a child deleted in the same millisecond
 * would otherwise share it and come back when only the parent is restored.
 */
export async function softDeleteSubtree(ctx: ServiceContext, rootId: string): Promise<string[]> {
  const t = ctx.now;
  const update = ctx.db.all<{ id: string }>(sql`${subtreeSql(rootId)},
    stamp(at) AS (SELECT MAX(${t}, COALESCE(MAX(deleted_at) + 1, 0)) FROM documents WHERE id IN (SELECT id FROM sub))
    UPDATE documents SET is_deleted = 1, deleted_at = (SELECT at FROM stamp), updated_at = ${t}
    WHERE id IN (SELECT id FROM sub) AND is_deleted = 0 RETURNING id`);
  // A tombstone for each document the update deletes, in the same transaction, before it.
  const where = and(inSubtree(documents.id, rootId), eq(documents.isDeleted, false))!;
  const d1 = d1Of(ctx.db);
  const { sql: text, params } = update.getQuery();
  const results = await d1.batch<{ id: string }>([
    ...asStatements(d1, documentStateEntriesQuery(ctx, { kind: "document.deleted", where })),
    statement(d1, text, ...params),
  ]);
  return results.at(-1)!.results.map((r) => r.id);
}
