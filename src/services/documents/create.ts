/** Creating a folder or rich-text document: one read batch (authentication, access, parent, order), one write batch. */
import {
  assembleDocumentsAccess,
  checkDocumentAccess,
  checkProjectAccess,
  documentsAccessStatements,
  projectAccessStatement,
} from "../../auth/access";
import { read, type ServiceContext } from "../context";
import { keptAnswerUpdates } from "../idempotency";
import { recordEntryQuery } from "../changes/log";
import type { ChangeSource } from "../../db/schema/changes";
import { documentCreatedEvent, emitAfterResponse } from "../events/events";
import {
  assertDocumentInserted,
  assertParentFolder,
  documentExists,
  nextOrderStatement,
  prepareCreateDocument,
  type NewDocument,
} from "./mutations";
import type { BatchItem } from "drizzle-orm/batch";
import type { DocumentRow } from "../../auth/access";
import { documentDto } from "./serialize";
import { ancestorsStatement } from "./queries";

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
  const { row, statements } = await prepareCreateDocument(ctx, {
    project,
    document: { ...input, parentId, order: input.order ?? order },
  });
  const dto = documentDto(row, [{ userId: ctx.user.id, role: "owner" }]);
  await commitNewDocument(ctx, { row, statements, answer: dto });
  return dto;
}

/**
 * The write batch of a new document: `prepareCreateDocument`'s statements, what else is written with it (`with`,
 * e.g. a Markdown import's first content) and a keyed request's `answer`, which commits with the document
 * (services/idempotency.ts) so a crash cannot part them — kept only if the document was written (a parent deleted
 * meanwhile writes nothing: 404). Then the document's creation event.
 */
export async function commitNewDocument(
  ctx: ServiceContext,
  input: {
    row: DocumentRow;
    statements: readonly BatchItem<"sqlite">[];
    with?: readonly BatchItem<"sqlite">[];
    answer: unknown;
    /** The change log's source of `document.created` (an import's: `import`). */
    source?: ChangeSource;
  },
) {
  const kept = await keptAnswerUpdates(ctx, { payload: { data: input.answer }, when: documentExists(input.row.id) });
  const { row } = input;
  const fields = { name: row.name, type: row.type, parentId: row.parentId };
  const log = recordEntryQuery(ctx, {
    kind: "document.created",
    recordId: row.id,
    workspaceId: row.workspaceId,
    projectId: row.projectId,
    changes: Object.fromEntries(Object.entries(fields).map(([k, v]) => [k, { before: null, after: v }])),
    exists: documentExists(row.id),
    source: input.source,
  });
  const [inserted] = await ctx.db.batch([...input.statements, ...log, ...(input.with ?? []), ...kept] as [
    BatchItem<"sqlite">,
    ...BatchItem<"sqlite">[],
  ]);
  assertDocumentInserted(inserted as unknown[]);
  emitAfterResponse(ctx, [documentCreatedEvent(input.row)]);
}

/**
 * Where a new document (folder, rich text or DOCX) may go, in one read batch: the project (write at its root, read
 * inside a folder), edit access to the parent folder with its depth, and the next free sibling `order`.
 */
export async function placeNewDocument(
  ctx: ServiceContext,
  { projectId, parentId }: { projectId: string; parentId: string | null },
) {
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
