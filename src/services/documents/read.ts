/** Reading one document's metadata (E10) in one D1 round trip: authentication, access and data in one batch. */
import { asc } from "drizzle-orm";
import { assembleDocumentsAccess, documentsAccessStatements } from "../../auth/access";
import { documentCollaborators } from "../../db/schema";
import { inJson } from "../../db/sql";
import { read, type ServiceContext } from "../context";
import { documentDto } from "./serialize";

export type DocumentDto = ReturnType<typeof documentDto>;

/** The document as E10 returns it, or null when it is missing, soft-deleted or unreadable (E10's not-found shape). */
export async function getDocument(ctx: ServiceContext, documentId: string): Promise<DocumentDto | null> {
  const [docs, wsRoles, docRoles, collaborators] = await read(ctx, [
    ...documentsAccessStatements(ctx.db, ctx.user.ref, [documentId]),
    ctx.db.select().from(documentCollaborators).where(inJson(documentCollaborators.documentId, [documentId])).orderBy(asc(documentCollaborators.createdAt)),
  ]);
  const access = assembleDocumentsAccess([docs, wsRoles, docRoles]).get(documentId);
  if (!access || !access.canRead || access.doc.isDeleted) return null;
  return documentDto(access.doc, collaborators.map((c) => ({ userId: c.userId, role: c.role })));
}
