/**
 * Clause references (E4, docs/api-guide.md › Content, snapshots and references): a block's link to a clause elsewhere, addressed by a `hierarchy` path. Each
 * operation reads the reference (or the id check) with its document's access in one D1 batch.
 */
import { eq } from "drizzle-orm";
import { clauseReferences } from "../../db/schema";
import { conflict, notFound } from "../../errors";
import { isUniqueViolation } from "../../db/errors";
import {
  assembleDocumentsAccess,
  checkDocumentAccess,
  documentsAccessStatements,
  documentsAccessStatementsIn,
} from "../../auth/access";
import { read, type ServiceContext } from "../context";
import { keptAnswerUpdates } from "../idempotency";
import { readBesideOtherShards, readWhereFound } from "../shardReads";
import { withClaimedReferenceId } from "./referenceIds";
import { documentClauseReferencesStatement, documentOfClause, liveClauseReferenceStatement } from "./queries";
import type { Db } from "../../env";

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

export type ClauseReferenceDto = ReturnType<typeof clauseReferenceDto>;

/**
 * E4: edit access to the document; `_id` is the caller's, and one already used (even by a deleted reference) is 409.
 * The id is claimed in the directory beside the first read (docs/scaling.md "Reference ids"), so two creates racing
 * on two shard databases cannot both win; the other shards are still asked, for references made before the
 * directory kept ids and not yet claimed by the repair.
 */
export async function createClauseReference(
  ctx: ServiceContext,
  input: { _id: string; blockId: string; documentId: string; hierarchy: string },
): Promise<ClauseReferenceDto> {
  const taken = () => conflict(`A clause reference with _id ${input._id} already exists`);
  // The `_id` is the client's: it must be free on every shard database, not only the document's.
  const sameId = (db: Db) =>
    db.select({ id: clauseReferences.id }).from(clauseReferences).where(eq(clauseReferences.id, input._id));
  const first = readBesideOtherShards(
    ctx,
    [...documentsAccessStatements(ctx.db, ctx.user.ref, [input.documentId]), sameId(ctx.db)],
    sameId,
  );
  return withClaimedReferenceId(
    ctx,
    { kind: "clause", id: input._id, documentId: input.documentId },
    first,
    async ([[docs, wsRoles, docRoles, existing], elsewhere], held) => {
      const { doc } = checkDocumentAccess(
        assembleDocumentsAccess([docs, wsRoles, docRoles]).get(input.documentId),
        "edit",
      );
      if (held || existing.length || elsewhere.some((rows) => rows.length)) throw taken();
      const row: ClauseReferenceRow = {
        id: input._id,
        blockId: input.blockId,
        documentId: doc.id,
        workspaceId: doc.workspaceId,
        hierarchy: input.hierarchy,
        originId: "",
        isDeleted: false,
        createdAt: ctx.now,
        updatedAt: ctx.now,
      };
      const dto = clauseReferenceDto(row);
      try {
        // A keyed request's answer commits with the reference (services/idempotency.ts), so a crash cannot part them.
        await ctx.db.batch([
          ctx.db.insert(clauseReferences).values(row),
          ...(await keptAnswerUpdates(ctx, { payload: { data: dto } })),
        ]);
      } catch (err) {
        if (isUniqueViolation(err, "clause_references.id")) throw taken();
        throw err;
      }
      return dto;
    },
  );
}

/** The live reference and its document's access, in one batch; 404 alike for missing, deleted and unreadable. */
async function loadClauseReference(
  ctx: ServiceContext,
  id: string,
  level: "read" | "edit",
): Promise<[ClauseReferenceRow, ServiceContext]> {
  // The `_id` names no shard: every shard database is asked at once, and the request continues where it is.
  const [[[row], docs, wsRoles, docRoles], there] = await readWhereFound(
    ctx,
    (db) => [
      liveClauseReferenceStatement(db, id),
      ...documentsAccessStatementsIn(db, ctx.user.ref, documentOfClause(id)),
    ],
    ([rows]) => rows.length > 0,
  );
  if (!row) throw notFound("Clause reference");
  checkDocumentAccess(assembleDocumentsAccess([docs, wsRoles, docRoles]).get(row.documentId), level, {
    as: "Clause reference",
  });
  return [row, there];
}

/** A clause reference with read access to its document: one D1 round trip with authentication. */
export async function getClauseReference(ctx: ServiceContext, { id }: { id: string }): Promise<ClauseReferenceDto> {
  return clauseReferenceDto((await loadClauseReference(ctx, id, "read"))[0]);
}

/** Soft-deletes a clause reference (edit access to its document). */
export async function deleteClauseReference(ctx: ServiceContext, { id }: { id: string }): Promise<void> {
  const [row, there] = await loadClauseReference(ctx, id, "edit");
  await there.db
    .update(clauseReferences)
    .set({ isDeleted: true, updatedAt: there.now })
    .where(eq(clauseReferences.id, row.id));
}

/** A document's live clause references, oldest first (read access to the document, else 404). */
export async function listClauseReferences(
  ctx: ServiceContext,
  { documentId }: { documentId: string },
): Promise<ClauseReferenceDto[]> {
  const [docs, wsRoles, docRoles, rows] = await read(ctx, [
    ...documentsAccessStatements(ctx.db, ctx.user.ref, [documentId]),
    documentClauseReferencesStatement(ctx.db, documentId),
  ]);
  checkDocumentAccess(assembleDocumentsAccess([docs, wsRoles, docRoles]).get(documentId), "read");
  return rows.map(clauseReferenceDto);
}
