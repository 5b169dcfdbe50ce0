import { documentCollaborators, documents } from "../../db/schema";
import type { Db } from "../../env";
import { inJson } from "../../db/sql";
import { sql, type SQL } from "drizzle-orm";

type Collaborator = { userId: string; role: string };

export function documentDto(row: typeof documents.$inferSelect, collaborators: Collaborator[]) {
  return {
    _id: row.id,
    parentId: row.parentId,
    projectId: row.projectId,
    userId: row.userId,
    workspaceId: row.workspaceId,
    name: row.name,
    type: row.type,
    createdAt: row.createdAt,
    updatedAt: row.updatedAt,
    description: row.description,
    reference: row.reference,
    order: row.order,
    isPublished: row.isPublished,
    publishedSettings: row.publishedSettings ?? null,
    external: row.external ?? null,
    icon: row.icon ?? null,
    emoji: row.emoji ?? null,
    collaborators,
    isDeleted: row.isDeleted,
  };
}

/** Batchable: the collaborators of the documents whose ids are listed (or selected by `ids` as SQL), oldest first. */
export function collaboratorsStatement(db: Db, ids: readonly string[] | SQL) {
  return db
    .select()
    .from(documentCollaborators)
    .where(
      Array.isArray(ids)
        ? inJson(documentCollaborators.documentId, ids as string[])
        : sql`${documentCollaborators.documentId} IN (${ids})`,
    )
    .orderBy(documentCollaborators.createdAt);
}

export function groupCollaborators(rows: (typeof documentCollaborators.$inferSelect)[]): Map<string, Collaborator[]> {
  const out = new Map<string, Collaborator[]>();
  for (const r of rows) {
    const list = out.get(r.documentId) ?? [];
    list.push({ userId: r.userId, role: r.role });
    out.set(r.documentId, list);
  }
  return out;
}
