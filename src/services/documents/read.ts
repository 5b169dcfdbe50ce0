/**
 * Document reads, each in one D1 round trip: authentication (when the route folds it in), access and data in one
 * batch (docs/api-guide.md › HTTP semantics: retries, caching, replicas).
 */
import { documentIdsGrantedInProjectStatement } from "../../auth/reach";
import { and, asc, eq, sql } from "drizzle-orm";
import {
  assembleDocumentsAccess,
  checkProjectAccess,
  documentsAccessStatements,
  projectAccessStatement,
} from "../../auth/access";
import { documents } from "../../db/schema";
import { read, type ServiceContext } from "../context";
import { collaboratorsStatement, commentCountsStatement } from "./queries";
import { countsOf, documentDto, groupCollaborators } from "./serialize";

export type DocumentDto = ReturnType<typeof documentDto>;

/** The document as E10 returns it, or null when it is missing, soft-deleted or unreadable (E10's not-found shape). */
export async function getDocument(
  ctx: ServiceContext,
  { documentId }: { documentId: string },
): Promise<DocumentDto | null> {
  const [docs, wsRoles, docRoles, collaborators, counts] = await read(ctx, [
    ...documentsAccessStatements(ctx.db, ctx.user.ref, [documentId]),
    collaboratorsStatement(ctx.db, [documentId]),
    commentCountsStatement(ctx.db, [documentId]),
  ]);
  const access = assembleDocumentsAccess([docs, wsRoles, docRoles]).get(documentId);
  if (!access || !access.canRead || access.doc.isDeleted) return null;
  return documentDto(
    access.doc,
    collaborators.map((c) => ({ userId: c.userId, role: c.role })),
    countsOf(counts, documentId),
  );
}

/** E20: whether the caller can read the document; false for missing, soft-deleted and unreadable alike. */
export async function canReadDocument(ctx: ServiceContext, { documentId }: { documentId: string }): Promise<boolean> {
  const [docs, wsRoles, docRoles] = await read(ctx, documentsAccessStatements(ctx.db, ctx.user.ref, [documentId]));
  const access = assembleDocumentsAccess([docs, wsRoles, docRoles]).get(documentId);
  return Boolean(access && access.canRead && !access.doc.isDeleted);
}

/**
 * The project's tree as the caller may see it: every live document for a workspace collaborator, else the ones a
 * document grant reaches (on the document or an ancestor folder). One batch: project access, the live documents,
 * the caller's grants in the project and the collaborators of every live document.
 */
export async function listDocuments(ctx: ServiceContext, { projectId }: { projectId: string }): Promise<DocumentDto[]> {
  const live = and(eq(documents.projectId, projectId), eq(documents.isDeleted, false));
  const [projectRows, rows, granted, collaborators, counts] = await read(ctx, [
    projectAccessStatement(ctx.db, ctx.user.ref, projectId),
    ctx.db
      .select()
      .from(documents)
      .where(live)
      .orderBy(asc(documents.parentId), asc(documents.order), asc(documents.createdAt)),
    documentIdsGrantedInProjectStatement(ctx.db, ctx.user.ref, projectId),
    collaboratorsStatement(ctx.db, sql`SELECT ${documents.id} FROM ${documents} WHERE ${live}`),
    commentCountsStatement(ctx.db, sql`SELECT ${documents.id} FROM ${documents} WHERE ${live}`),
  ]);
  const { workspaceRole } = checkProjectAccess(projectRows[0], "read");
  const grantedIds = new Set(granted.map((g) => g.id));
  const visible = workspaceRole ? rows : rows.filter((r) => grantedIds.has(r.id));
  const byDoc = groupCollaborators(collaborators);
  return visible.map((r) => documentDto(r, byDoc.get(r.id) ?? [], countsOf(counts, r.id)));
}
