import { and, eq, isNull, sql } from "drizzle-orm";
import { documentCollaborators, documents, type DocumentType } from "../../db/schema";
import type { Db } from "../../env";
import { conflict, notFound, validation } from "../../errors";
import { newId, now } from "../../lib/ids";
import { MAX_FOLDER_DEPTH, type ProjectRow } from "../../auth/access";
import type { Emoji, Icon } from "../../db/schema";
import { ancestorIds, subtreeHeight, subtreeSql } from "./tree";

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

/** The next free `order` among siblings, so a new document lands last. */
async function nextOrder(db: Db, projectId: string, parentId: string | null) {
  const [row] = await db
    .select({ max: sql<number | null>`MAX(${documents.order})` })
    .from(documents)
    .where(and(eq(documents.projectId, projectId), parentId === null ? isNull(documents.parentId) : eq(documents.parentId, parentId)));
  return (row?.max ?? -1) + 1;
}

/** A parent must be a live FOLDER of the same project and not so deep that walks stop being bounded. */
export async function checkParentFolder(db: Db, projectId: string, parent: DocumentRow | undefined, parentId: string, knownDepth?: number) {
  if (!parent || parent.isDeleted) throw notFound("Parent folder");
  if (parent.projectId !== projectId) throw validation("The parent must belong to the same project", [{ path: "parentId", message: "not in this project" }]);
  if (parent.type !== "FOLDER") throw validation("The parent must be a FOLDER", [{ path: "parentId", message: "not a folder" }]);
  // `knownDepth`: the parent's ancestor count (itself included) already read in the caller's batch (`ancestorCountStatement`).
  const depth = knownDepth ?? (await ancestorIds(db, parentId)).length;
  if (depth >= MAX_FOLDER_DEPTH) throw validation(`Folders nest at most ${MAX_FOLDER_DEPTH} deep`, [{ path: "parentId", message: "too deep" }]);
}

/** Statements that create a document with its creator as `owner`; the caller runs them (possibly in a larger batch). */
export async function prepareCreateDocument(db: Db, userId: string, project: ProjectRow, input: NewDocument) {
  const t = now();
  const parentId = input.parentId ?? null;
  const row: DocumentRow = {
    id: input.id ?? newId(),
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
  const statements = [
    db.insert(documents).values(row),
    db.insert(documentCollaborators).values({ documentId: row.id, userId, role: "owner", createdAt: t }),
  ] as const;
  return { row, statements };
}

export async function createDocument(db: Db, userId: string, project: ProjectRow, input: NewDocument) {
  const { row, statements } = await prepareCreateDocument(db, userId, project, input);
  await db.batch(statements);
  return row;
}

/** Moving a document under itself or one of its descendants would detach a cycle from the tree. */
export async function checkMove(db: Db, doc: DocumentRow, newParentId: string) {
  const chain = await ancestorIds(db, newParentId);
  if (chain.includes(doc.id)) throw conflict("A document cannot be moved into its own subtree");
  const height = doc.type === "FOLDER" ? await subtreeHeight(db, doc.id) : 0;
  if (chain.length + height >= MAX_FOLDER_DEPTH) throw validation(`Folders nest at most ${MAX_FOLDER_DEPTH} deep`, [{ path: "parentId", message: "too deep" }]);
}

/**
 * Soft-deletes the document and its live subtree, stamping one deletedAt so restore can undo exactly this.
 * The stamp is kept above every earlier deletion in the subtree: a child deleted in the same millisecond
 * would otherwise share it and come back when only the parent is restored.
 */
export async function softDeleteSubtree(db: Db, rootId: string) {
  const t = now();
  const rows = await db.all<{ id: string }>(sql`${subtreeSql(rootId)},
    stamp(at) AS (SELECT MAX(${t}, COALESCE(MAX(deleted_at) + 1, 0)) FROM documents WHERE id IN (SELECT id FROM sub))
    UPDATE documents SET is_deleted = 1, deleted_at = (SELECT at FROM stamp), updated_at = ${t}
    WHERE id IN (SELECT id FROM sub) AND is_deleted = 0 RETURNING id`);
  return rows.length;
}

export async function restoreSubtree(db: Db, root: DocumentRow) {
  if (root.parentId) {
    const [parent] = await db.select({ isDeleted: documents.isDeleted }).from(documents).where(eq(documents.id, root.parentId));
    if (parent?.isDeleted) throw conflict("The parent folder is deleted; restore it first");
  }
  if (!root.isDeleted) return 0;
  const t = now();
  const rows = await db.all<{ id: string }>(sql`${subtreeSql(root.id)}
    UPDATE documents SET is_deleted = 0, deleted_at = NULL, updated_at = ${t}
    WHERE id IN (SELECT id FROM sub) AND is_deleted = 1 AND deleted_at = ${root.deletedAt} RETURNING id`);
  return rows.length;
}
