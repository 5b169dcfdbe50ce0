/**
 * E5: everything a client needs to export documents, gathered with a fixed number of D1 round trips however
 * many documents are listed (every read below is one query over all of them, or one batch).
 */
import { and, asc, eq } from "drizzle-orm";
import { clauseReferences } from "../../db/schema";
import { assembleDocumentsAccess, checkReadableDocuments, documentsAccess, documentsAccessStatements, readableProjectIds } from "../../auth/access";
import { inJson } from "../../db/sql";
import { ApiError } from "../../errors";
import { read, type ServiceContext } from "../context";
import { contentMetasQuery, readContents, readContentsOf, settingsOf, settingsQuery } from "../content/store";
import { clauseReferenceDto } from "../references/clauseReferences";
import { tableReferenceDto, tableReferencesOfDocuments } from "../references/tableReferences";
import { readRowsAcrossTables } from "../tables/rows";

type Block = Record<string, unknown>;

/** `hierarchy` is `/`-separated; its first two parts name the referenced document and block (API.md §9). */
function parseHierarchy(hierarchy: string): { documentId: string; blockId: string } | null {
  const [documentId, blockId] = hierarchy.split("/");
  return documentId && blockId ? { documentId, blockId } : null;
}

/** Depth-first search for the block with this id (`id`, `_id` or `blockId`), nested children included. */
function findBlock(blocks: unknown, blockId: string, depth = 0): Block | null {
  if (depth > 64 || blocks === null || typeof blocks !== "object") return null;
  if (Array.isArray(blocks)) {
    for (const b of blocks) {
      const hit = findBlock(b, blockId, depth + 1);
      if (hit) return hit;
    }
    return null;
  }
  const block = blocks as Block;
  if (block.id === blockId || block._id === blockId || block.blockId === blockId) return block;
  for (const value of Object.values(block)) {
    if (value && typeof value === "object") {
      const hit = findBlock(value, blockId, depth + 1);
      if (hit) return hit;
    }
  }
  return null;
}

/**
 * E5: every listed document must be readable and in `projectId` (else 403, nothing returned). Authentication,
 * access, clause references, content metadata and settings come in one D1 batch, the table references in a second;
 * resolving references (their target documents' access and content, the referenced rows) adds reads only when
 * there are references.
 */
export async function getDocumentsData(ctx: ServiceContext, input: { projectId: string; documentIds: readonly string[] }) {
  const { db } = ctx;
  const { documentIds } = input;
  const ids = [...new Set(documentIds)];
  const [docs, wsRoles, docRoles, clauses, contentMetas, settingRows] = await read(ctx, [
    ...documentsAccessStatements(db, ctx.user.ref, ids),
    db
      .select()
      .from(clauseReferences)
      .where(and(inJson(clauseReferences.documentId, ids), eq(clauseReferences.isDeleted, false)))
      .orderBy(asc(clauseReferences.createdAt), asc(clauseReferences.id)),
    contentMetasQuery(db, ids),
    settingsQuery(db, ids),
  ]);
  const access = checkReadableDocuments(assembleDocumentsAccess([docs, wsRoles, docRoles]), documentIds);
  for (const id of documentIds) {
    if (access.get(id)!.doc.projectId !== input.projectId) throw new ApiError("ForbiddenError", `Document ${id} is not in project ${input.projectId}`);
  }
  const user = ctx.user;
  const r2 = ctx.env.BLOBS;
  const settings = settingsOf(ids, settingRows);
  const [tableRefs, contents] = await Promise.all([tableReferencesOfDocuments(db, ids), readContentsOf(db, r2, ids, contentMetas)]);

  // Clause targets: resolved only where the caller can read the referenced document.
  const targets = new Map(clauses.map((c) => [c.id, parseHierarchy(c.hierarchy)]));
  const targetDocIds = [...new Set([...targets.values()].flatMap((t) => (t ? [t.documentId] : [])))];
  const [targetAccess, readableProjects] = await Promise.all([
    documentsAccess(db, user._id, targetDocIds),
    readableProjectIds(db, user._id, [...new Set(tableRefs.map((r) => r.tableProjectId))]),
  ]);
  const readableTargets = new Set(
    targetDocIds.filter((id) => {
      const a = targetAccess.get(id);
      return a && a.canRead && !a.doc.isDeleted;
    }),
  );
  const visibleRefs = tableRefs.filter((r) => readableProjects.has(r.tableProjectId));
  const referencedRowIds = visibleRefs.flatMap((r) => [r.ref.relatedRowId, r.ref.rowId, ...(r.ref.oneToManyInstanceIds ?? [])]).filter((x): x is string => !!x);
  const missingTargets = [...readableTargets].filter((id) => !contents.has(id));
  const [targetContents, rowsById] = await Promise.all([readContents(db, r2, missingTargets), readRowsAcrossTables(db, referencedRowIds)]);
  const blocksOf = (id: string) => (contents.get(id) ?? targetContents.get(id))?.blocks;

  return documentIds.map((documentId) => {
    const docRefs = visibleRefs.filter((r) => r.ref.documentId === documentId);
    const rowIds = new Set(docRefs.flatMap((r) => [r.ref.relatedRowId, r.ref.rowId, ...(r.ref.oneToManyInstanceIds ?? [])]).filter((x): x is string => !!x));
    return {
      documentId,
      references: {
        clauses: clauses
          .filter((c) => c.documentId === documentId)
          .map((c) => {
            const target = targets.get(c.id);
            const block = target && readableTargets.has(target.documentId) ? findBlock(blocksOf(target.documentId), target.blockId) : null;
            return { ...clauseReferenceDto(c), resolved: target && block ? { documentId: target.documentId, blockId: target.blockId, block } : null };
          }),
        tables: {
          // Only rows of the referencing table's project: that is what the reader was shown to be able to read.
          referenceRow: [...rowIds].flatMap((id) => {
            const row = rowsById.get(id);
            return row && docRefs.some((r) => r.tableProjectId === row.projectId) ? [row] : [];
          }),
          references: docRefs.map(tableReferenceDto),
        },
      },
      settings: settings.get(documentId) ?? { listTemplateId: "", importedTermId: "" },
      blocks: contents.get(documentId)?.blocks ?? [],
    };
  });
}
