/** Clause references (E4, API.md §9): a block's link to a clause elsewhere, addressed by a `hierarchy` path. */
import { and, asc, eq } from "drizzle-orm";
import { clauseReferences } from "../../db/schema";
import type { Db } from "../../env";
import { conflict } from "../../errors";
import { now } from "../../lib/ids";
import { isUniqueViolation } from "../../db/errors";
import type { DocumentRow } from "../../auth/access";

type ClauseReferenceRow = typeof clauseReferences.$inferSelect;

export function clauseReferenceDto(r: ClauseReferenceRow) {
  return {
    _id: r.id,
    blockId: r.blockId,
    documentId: r.documentId,
    workspaceId: r.workspaceId,
    hierarchy: r.hierarchy,
    originId: r.originId,
    createdAt: r.createdAt,
    updatedAt: r.updatedAt,
    isDeleted: r.isDeleted,
  };
}

/** `_id` is the caller's; one already used (even by a deleted reference) is 409. */
export async function createClauseReference(db: Db, doc: DocumentRow, input: { _id: string; blockId: string; hierarchy: string }): Promise<ClauseReferenceRow> {
  const [existing] = await db.select({ id: clauseReferences.id }).from(clauseReferences).where(eq(clauseReferences.id, input._id));
  if (existing) throw conflict(`A clause reference with _id ${input._id} already exists`);
  const t = now();
  try {
    const [row] = await db
      .insert(clauseReferences)
      .values({ id: input._id, blockId: input.blockId, documentId: doc.id, workspaceId: doc.workspaceId, hierarchy: input.hierarchy, createdAt: t, updatedAt: t })
      .returning();
    return row!;
  } catch (err) {
    if (isUniqueViolation(err, "clause_references.id")) throw conflict(`A clause reference with _id ${input._id} already exists`);
    throw err;
  }
}

export async function findClauseReference(db: Db, id: string): Promise<ClauseReferenceRow | null> {
  const [row] = await db.select().from(clauseReferences).where(and(eq(clauseReferences.id, id), eq(clauseReferences.isDeleted, false)));
  return row ?? null;
}

export async function clauseReferencesOfDocument(db: Db, documentId: string): Promise<ClauseReferenceRow[]> {
  return db
    .select()
    .from(clauseReferences)
    .where(and(eq(clauseReferences.documentId, documentId), eq(clauseReferences.isDeleted, false)))
    .orderBy(asc(clauseReferences.createdAt), asc(clauseReferences.id));
}

export async function softDeleteClauseReference(db: Db, id: string): Promise<void> {
  await db.update(clauseReferences).set({ isDeleted: true, updatedAt: now() }).where(eq(clauseReferences.id, id));
}
