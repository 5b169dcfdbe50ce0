/**
 * Changing a document: metadata and moves (PATCH), soft delete with its subtree (DELETE), restore, publish.
 * Each loads access (and, for If-Match, the current representation) in one read batch, then writes in one batch:
 * 2 D1 round trips (docs/api-guide.md › HTTP semantics: retries, caching, replicas).
 */
import { and, eq, sql, type SQL } from "drizzle-orm";
import type { BatchItem } from "drizzle-orm/batch";
import type { SQLiteUpdateSetSource } from "drizzle-orm/sqlite-core";
import { nextUpdatedAt } from "../../db/sql";
import {
  assembleDocumentsAccess,
  checkDocumentAccess,
  checkProjectAccess,
  documentsAccessStatements,
  projectAccessStatement,
  type DocumentAccess,
} from "../../auth/access";
import { documentCollaborators, documents, type Emoji, type Icon } from "../../db/schema";
import { conflict, notFound, preconditionFailed } from "../../errors";
import type { ExpectedVersion } from "../../lib/etag";
import { assertExpectedVersion } from "../preconditions";
import { read, type ServiceContext } from "../context";
import { assertMove, assertParentFolder, softDeleteSubtree } from "./mutations";
import {
  ancestorsStatement,
  collaboratorsStatement,
  commentCountsStatement,
  restoreSubtreeStatement,
  restoreSubtreeWhere,
  subtreeHeightStatement,
} from "./queries";
import { countsOf, documentDto, groupCollaborators } from "./serialize";
import { liveRoomsStatement, revalidateRooms } from "../collab/rooms";
import { diffEntryQuery, documentStateEntriesQuery } from "../changes/recordLog";
import { documentPublishAudit } from "../portals/audit";

type DocumentRow = typeof documents.$inferSelect;

export interface DocumentPatch {
  name?: string;
  description?: string;
  reference?: string;
  order?: number;
  /** A folder id moves the document there; null moves it to the project root. */
  parentId?: string | null;
  icon?: Icon | null;
  emoji?: Emoji | null;
}

/** What E10 returns for the document: the representation an If-Match tag is computed from. */
function representation(
  doc: DocumentRow,
  collaborators: (typeof documentCollaborators.$inferSelect)[],
  counts: Parameters<typeof countsOf>[0],
) {
  return {
    data: documentDto(
      doc,
      collaborators.map((c) => ({ userId: c.userId, role: c.role })),
      countsOf(counts, doc.id),
    ),
  };
}

/**
 * The written row and its collaborators, read back in the write's own batch. With `unchangedSince` (an If-Match
 * was checked against the row as read) the write is a compare-and-set on `updatedAt`: a concurrent write in
 * between makes it change nothing, and the answer is 412 (docs/api-guide.md, "HTTP semantics").
 */
async function writeAndReload(
  ctx: ServiceContext,
  documentId: string,
  set: SQLiteUpdateSetSource<typeof documents>,
  unchangedSince?: number,
  log: (where: SQL) => readonly BatchItem<"sqlite">[] = () => [],
) {
  // A move into a folder names the folder's liveness in the same statement, so a document never lands in a folder
  // deleted meanwhile (nothing is written; 404, as when the folder was already gone).
  const into = typeof set.parentId === "string" ? set.parentId : null;
  const where = and(
    eq(documents.id, documentId),
    unchangedSince === undefined ? undefined : eq(documents.updatedAt, unchangedSince),
    into ? sql`EXISTS (SELECT 1 FROM ${documents} p WHERE p.id = ${into} AND p.is_deleted = 0)` : undefined,
  )!;
  // The change log's entries go first, guarded by the update's own WHERE: recorded only if it lands and changes something.
  const entries = log(where);
  const results = await ctx.db.batch([
    ...entries,
    ctx.db.update(documents).set(set).where(where).returning(),
    collaboratorsStatement(ctx.db, [documentId]),
    commentCountsStatement(ctx.db, [documentId]),
  ] as unknown as [BatchItem<"sqlite">, ...BatchItem<"sqlite">[]]);
  const [[row], collaborators, counts] = results.slice(entries.length) as [
    DocumentRow[],
    (typeof documentCollaborators.$inferSelect)[],
    Parameters<typeof countsOf>[0],
  ];
  if (!row) throw unchangedSince === undefined && into ? notFound("Folder") : preconditionFailed();
  return documentDto(row, groupCollaborators(collaborators).get(documentId) ?? [], countsOf(counts, documentId));
}

/**
 * Needs edit access to the document; a move also needs edit access to the destination folder (or, to the root, the
 * workspace editor role); a move into its own subtree is 409. If-Match is checked against E10's representation.
 */
export async function updateDocument(
  ctx: ServiceContext,
  input: { documentId: string; patch: DocumentPatch; expected?: ExpectedVersion },
) {
  const { documentId, patch } = input;
  const target = patch.parentId;
  const [docs, wsRoles, docRoles, collaborators, counts, chain, height, projectRows, live] = await read(ctx, [
    ...documentsAccessStatements(ctx.db, ctx.user.ref, target ? [documentId, target] : [documentId]),
    collaboratorsStatement(ctx.db, [documentId]),
    commentCountsStatement(ctx.db, [documentId]),
    // Only a move needs these; "" matches nothing, so the batch keeps one shape.
    ancestorsStatement(ctx.db, target ?? ""),
    subtreeHeightStatement(ctx.db, target ? documentId : ""),
    projectAccessStatement(
      ctx.db,
      ctx.user.ref,
      target === null ? sql`(SELECT d.project_id FROM documents d WHERE d.id = ${documentId})` : "",
    ),
    // A move changes what ancestor folders grant (docs/api-guide.md › Concepts): the subtree's rooms with sockets re-check their users.
    liveRoomsStatement(ctx.db, { subtreeOf: target !== undefined ? documentId : "" }),
  ]);
  const access = assembleDocumentsAccess([docs, wsRoles, docRoles]);
  const own = checkDocumentAccess(access.get(documentId), "read");
  const moving = target !== undefined && target !== own.doc.parentId;
  // Existence and read access of the destination before any role (docs/api-guide.md › Conventions): a viewer naming a missing folder gets 404.
  if (moving && target) checkDocumentAccess(access.get(target), "read");
  const { doc } = checkDocumentAccess(own, "edit");
  await assertExpectedVersion(input.expected, () => representation(doc, collaborators, counts));
  if (moving) {
    if (target) {
      const parent = checkDocumentAccess(access.get(target), "edit");
      assertParentFolder(doc.projectId, parent.doc, chain.length);
      assertMove(
        doc,
        chain.map((c) => c.id),
        height[0]?.height ?? 0,
      );
    } else {
      checkProjectAccess(projectRows[0], "write");
    }
  }
  const updated = await writeAndReload(
    ctx,
    documentId,
    {
      ...(patch.name !== undefined && { name: patch.name }),
      ...(patch.description !== undefined && { description: patch.description }),
      ...(patch.reference !== undefined && { reference: patch.reference }),
      ...(patch.order !== undefined && { order: patch.order }),
      ...(moving && { parentId: target ?? null }),
      ...(patch.icon !== undefined && { icon: patch.icon }),
      ...(patch.emoji !== undefined && { emoji: patch.emoji }),
      updatedAt: nextUpdatedAt(documents.updatedAt, ctx.now),
    },
    input.expected === undefined ? undefined : doc.updatedAt,
    (where) => patchEntries(ctx, doc, { ...patch, parentId: moving ? (target ?? null) : undefined }, where),
  );
  // Guests whose access came from the folder left behind are disconnected now, not at their next connect (docs/api-guide.md › Automations, published portals, collaborative editing).
  if (moving && live.length) await revalidateRooms(ctx.env, live);
  return updated;
}

/**
 * The change log's entries of a PATCH (before its update, guarded by its WHERE): `document.updated` with the
 * metadata fields it changes, `document.moved` when the parent changes.
 */
function patchEntries(ctx: ServiceContext, doc: DocumentRow, patch: DocumentPatch, guard: SQL) {
  const given = <K extends keyof DocumentPatch>(field: K, json = false) =>
    patch[field] === undefined ? [] : [{ field, column: documents[field], after: patch[field], json }];
  const place = { workspaceId: doc.workspaceId, projectId: doc.projectId };
  const common = { recordId: doc.id, place, table: documents, guard };
  const fields = [
    ...given("name"),
    ...given("description"),
    ...given("reference"),
    ...given("order"),
    ...given("icon", true),
    ...given("emoji", true),
  ];
  return [
    ...diffEntryQuery(ctx, { ...common, kind: "document.updated", fields }),
    ...diffEntryQuery(ctx, { ...common, kind: "document.moved", fields: given("parentId") }),
  ];
}

/** Access (edit) and the current representation, for the writes below that take no other input. */
async function loadForEdit(
  ctx: ServiceContext,
  documentId: string,
  opts: { includeDeleted?: boolean; expected?: ExpectedVersion } = {},
): Promise<DocumentAccess> {
  const [docs, wsRoles, docRoles, collaborators, counts] = await read(ctx, [
    ...documentsAccessStatements(ctx.db, ctx.user.ref, [documentId]),
    collaboratorsStatement(ctx.db, [documentId]),
    commentCountsStatement(ctx.db, [documentId]),
  ]);
  const access = checkDocumentAccess(assembleDocumentsAccess([docs, wsRoles, docRoles]).get(documentId), "edit", {
    includeDeleted: opts.includeDeleted,
  });
  await assertExpectedVersion(opts.expected, () => representation(access.doc, collaborators, counts));
  return access;
}

/**
 * Soft-deletes the document and its live subtree (edit access); returns how many documents were deleted. Editors
 * still connected to a deleted document's room are disconnected (its rooms with sockets are found in the access
 * batch, so this costs no extra D1 round trip).
 */
export async function deleteDocument(ctx: ServiceContext, input: { documentId: string; expected?: ExpectedVersion }) {
  const { documentId } = input;
  const [docs, wsRoles, docRoles, collaborators, counts, live] = await read(ctx, [
    ...documentsAccessStatements(ctx.db, ctx.user.ref, [documentId]),
    collaboratorsStatement(ctx.db, [documentId]),
    commentCountsStatement(ctx.db, [documentId]),
    liveRoomsStatement(ctx.db, { subtreeOf: documentId }),
  ]);
  const { doc } = checkDocumentAccess(assembleDocumentsAccess([docs, wsRoles, docRoles]).get(documentId), "edit");
  await assertExpectedVersion(input.expected, () => representation(doc, collaborators, counts));
  const deleted = await softDeleteSubtree(ctx, documentId);
  const gone = new Set(deleted);
  await revalidateRooms(
    ctx.env,
    live.filter((r) => gone.has(r.documentId)),
  );
  return { deletedDocuments: deleted.length };
}

/**
 * Restores a soft-deleted document with the subtree deleted along with it (edit access). A document whose parent
 * folder is still deleted is 409: restore the folder first.
 */
export async function restoreDocument(ctx: ServiceContext, { documentId }: { documentId: string }) {
  const [docs, wsRoles, docRoles, parent, collaborators, counts] = await read(ctx, [
    ...documentsAccessStatements(ctx.db, ctx.user.ref, [documentId]),
    ctx.db
      .select({ isDeleted: documents.isDeleted })
      .from(documents)
      .where(eq(documents.id, sql`(SELECT d.parent_id FROM documents d WHERE d.id = ${documentId})`)),
    collaboratorsStatement(ctx.db, [documentId]),
    commentCountsStatement(ctx.db, [documentId]),
  ]);
  const { doc } = checkDocumentAccess(assembleDocumentsAccess([docs, wsRoles, docRoles]).get(documentId), "edit", {
    includeDeleted: true,
  });
  if (parent[0]?.isDeleted) throw conflict("The parent folder is deleted; restore it first");
  if (!doc.isDeleted) return { ...representation(doc, collaborators, counts).data, restoredDocuments: 0 };
  const log = documentStateEntriesQuery(ctx, { kind: "document.restored", where: restoreSubtreeWhere(doc) });
  const results = await ctx.db.batch([
    ...log,
    restoreSubtreeStatement(ctx.db, doc, ctx.now),
    ctx.db.select().from(documents).where(eq(documents.id, documentId)),
  ] as unknown as [BatchItem<"sqlite">, ...BatchItem<"sqlite">[]]);
  const [restored, [row]] = results.slice(log.length) as [{ id: string }[], DocumentRow[]];
  return { ...representation(row!, collaborators, counts).data, restoredDocuments: restored.length };
}

/** Publishes the document (edit access) with the given styling and domain slug. */
export async function publishDocument(
  ctx: ServiceContext,
  input: { documentId: string; styling?: Record<string, unknown>; domainSlug?: string },
) {
  const { doc } = await loadForEdit(ctx, input.documentId);
  const settings = {
    publishedById: ctx.user.id,
    publishedAt: ctx.now,
    styling: input.styling ?? {},
    domainSlug: input.domainSlug ?? "",
  };
  return writeAndReload(
    ctx,
    input.documentId,
    { isPublished: true, publishedSettings: settings, updatedAt: ctx.now },
    undefined,
    (where) => [documentPublishAudit(ctx, { doc, published: true, where })],
  );
}

/** Withdraws a publication (edit access). */
export async function unpublishDocument(ctx: ServiceContext, { documentId }: { documentId: string }) {
  const { doc } = await loadForEdit(ctx, documentId);
  return writeAndReload(
    ctx,
    documentId,
    { isPublished: false, publishedSettings: null, updatedAt: ctx.now },
    undefined,
    (where) => [documentPublishAudit(ctx, { doc, published: false, where })],
  );
}
