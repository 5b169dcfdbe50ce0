/** Creating a folder or rich-text document: one read batch (authentication, access, parent, order), one write batch. */
import { assembleDocumentsAccess, checkDocumentAccess, checkProjectAccess, documentsAccessStatements, projectAccessStatement } from "../../auth/access";
import { sql } from "drizzle-orm";
import { read, type ServiceContext } from "../context";
import { keptAnswerUpdates } from "../idempotency";
import { documentCreatedEvent, emitAfterResponse } from "../events/events";
import { assertDocumentInserted, assertParentFolder, nextOrderStatement, prepareCreateDocument, type NewDocument } from "./mutations";
import { documentDto } from "./serialize";
import { ancestorsStatement } from "./tree";

export interface CreateDocumentInput extends Omit<NewDocument, "external" | "id"> {
  projectId: string;
}

/**
 * At the project root this needs workspace owner/admin/editor; inside a folder, edit access to that folder (which
 * must be a live FOLDER of the same project, not nested too deep). The creator becomes collaborator `owner`.
 */
export async function createDocument(ctx: ServiceContext, input: CreateDocumentInput) {
  const parentId = input.parentId ?? null;
  const { project, order } = await placeNewDocument(ctx, { projectId: input.projectId, parentId });
  const { row, statements } = await prepareCreateDocument(ctx, { project, document: { ...input, parentId, order: input.order ?? order } });
  const dto = documentDto(row, [{ userId: ctx.user.id, role: "owner" }]);
  // A keyed request's answer commits with the document (services/idempotency.ts), so a crash cannot part them; it is
  // kept only if the document was written (a parent deleted meanwhile writes nothing and answers 404).
  const kept = await keptAnswerUpdates(ctx, { payload: { data: dto }, when: sql`exists (select 1 from documents where id = ${row.id})` });
  const [inserted] = await ctx.db.batch([...statements, ...kept]);
  assertDocumentInserted(inserted);
  emitAfterResponse(ctx, [documentCreatedEvent(row)]);
  return dto;
}

/**
 * Where a new document (folder, rich text or DOCX) may go, in one read batch: the project (write at its root, read
 * inside a folder), edit access to the parent folder with its depth, and the next free sibling `order`.
 */
export async function placeNewDocument(ctx: ServiceContext, { projectId, parentId }: { projectId: string; parentId: string | null }) {
  const [projectRows, docs, wsRoles, docRoles, chain, order] = await read(ctx, [
    projectAccessStatement(ctx.db, ctx.user.ref, projectId),
    ...documentsAccessStatements(ctx.db, ctx.user.ref, parentId ? [parentId] : []),
    ancestorsStatement(ctx.db, parentId ?? ""),
    nextOrderStatement(ctx.db, projectId, parentId),
  ]);
  const { project } = checkProjectAccess(projectRows[0], parentId ? "read" : "write");
  if (parentId) {
    const parent = checkDocumentAccess(assembleDocumentsAccess([docs, wsRoles, docRoles]).get(parentId), "edit");
    assertParentFolder(project.id, parent.doc, chain.length);
  }
  return { project, order: order[0]?.next ?? 0 };
}
