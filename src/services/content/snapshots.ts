/**
 * Snapshots freeze a document's content (and its newest DOCX version). Taking one copies nothing: the snapshot
 * points at the current content object, which the next content write then keeps instead of deleting; DOCX objects
 * are never deleted, so a snapshot only names its version. Restore copies the frozen blocks into a new content
 * version and records the frozen DOCX blob as a new newest DOCX version (./snapshotRestore.ts).
 *
 * Every operation reads the snapshot and its document's access in one batch (the document named by a subquery on
 * the snapshot), and writes in one more.
 */
import { and, desc, eq, sql } from "drizzle-orm";
import {
  assembleDocumentsAccess,
  checkDocumentAccess,
  documentsAccessStatements,
  documentsAccessStatementsIn,
  notFoundAs,
  soleDocumentAccess,
  type DocumentLevel,
} from "../../auth/access";
import { collabRooms, documents, snapshots } from "../../db/schema";
import { d1Of } from "../../db/d1";
import type { Db } from "../../env";
import { conflict, notFound, preconditionFailed, validation } from "../../errors";
import { etagOf, versionMatches, type ExpectedVersion } from "../../lib/etag";
import { read, type ServiceContext } from "../context";
import { keptAnswerStatements } from "../idempotency";
import { EMPTY_BLOCKS_JSON } from "./store";
import { dropSnapshotStatements, snapshotInsertStatement } from "./queries";

export type SnapshotRow = typeof snapshots.$inferSelect;
export type SnapshotDto = ReturnType<typeof snapshotDto>;

export function snapshotDto(row: SnapshotRow) {
  return {
    _id: row.id,
    documentId: row.documentId,
    name: row.name,
    description: row.description,
    contentVersion: row.contentVersion,
    docxVersion: row.docxVersion ?? null,
    userId: row.userId,
    createdAt: row.createdAt,
    updatedAt: row.updatedAt,
  };
}

/**
 * The strong ETag of GET /snapshot/{id}: its record and the immutable content object it freezes determine the
 * representation byte for byte, so the tag is computed without reading the blocks (GET, 304 and If-Match agree).
 */
export function snapshotEtag(row: SnapshotRow): Promise<string> {
  return etagOf({ data: snapshotDto(row), content: row.contentKey });
}

/** The versions a new snapshot of a document would freeze: its content version (0 without content) and its newest DOCX version (a DOCX only). */
export interface FrozenState {
  contentVersion: number;
  docxVersion: number | null;
}

/** Batchable: what snapshotInsertStatement would freeze of the document now (no row for a missing document). */
function frozenStateQuery(db: Db, documentId: string) {
  return db
    .select({
      contentVersion: sql<number>`COALESCE((SELECT c.version FROM document_contents c WHERE c.document_id = ${documents.id}), 0)`,
      docxVersion: sql<
        number | null
      >`CASE WHEN ${documents.type} = 'EXTERNAL' AND json_extract(${documents.external}, '$.type') = 'DOCX'
        THEN (SELECT MAX(v.version) FROM docx_versions v WHERE v.document_id = ${documents.id}) END`,
    })
    .from(documents)
    .where(eq(documents.id, documentId));
}

/** How often a keyed snapshot is tried again when the document changed between its read and its write. */
const SNAPSHOT_ATTEMPTS = 3;

/** The snapshot and its document's access at `level` in one batch; an unreadable document's snapshot is not found. */
export async function loadSnapshot(ctx: ServiceContext, snapshotId: string, level: DocumentLevel) {
  const [found, docs, wsRoles, docRoles, rooms] = await read(ctx, [
    ctx.db.select().from(snapshots).where(eq(snapshots.id, snapshotId)),
    ...documentsAccessStatementsIn(
      ctx.db,
      ctx.user.ref,
      sql`SELECT document_id FROM ${snapshots} WHERE ${snapshots.id} = ${snapshotId}`,
    ),
    // Whether the document has a collaborative room (a restore goes through it).
    ctx.db
      .select({ documentId: collabRooms.documentId })
      .from(collabRooms)
      .where(
        sql`${collabRooms.documentId} = (SELECT document_id FROM ${snapshots} WHERE ${snapshots.id} = ${snapshotId})`,
      ),
  ]);
  const snapshot = found[0];
  if (!snapshot) throw notFound("Snapshot");
  const access = await notFoundAs(
    "Snapshot",
    Promise.resolve().then(() => checkDocumentAccess(soleDocumentAccess([docs, wsRoles, docRoles]), level)),
  );
  return { snapshot, access, hasRoom: rooms.length > 0 };
}

/** The If-Match check of a snapshot write (412, nothing changed). */
async function assertSnapshotIfMatch(expected: ExpectedVersion | undefined, snapshot: SnapshotRow) {
  if (expected !== undefined && !versionMatches(expected, await snapshotEtag(snapshot))) throw preconditionFailed();
}

/** POST /snapshot: edit access to the document. Two D1 round trips. */
export async function createSnapshot(
  ctx: ServiceContext,
  input: { documentId: string; name: string; description?: string },
): Promise<SnapshotDto> {
  const d1 = d1Of(ctx.db);
  for (let attempt = 1; ; attempt++) {
    const [docs, wsRoles, docRoles, [frozen]] = await read(ctx, [
      ...documentsAccessStatements(ctx.db, ctx.user.ref, [input.documentId]),
      frozenStateQuery(ctx.db, input.documentId),
    ]);
    checkDocumentAccess(assembleDocumentsAccess([docs, wsRoles, docRoles]).get(input.documentId), "edit");
    if (!frozen) throw notFound("Document");
    const id = ctx.ids.beside(input.documentId);
    // The answer names no object key: those are the INSERT … SELECT's, unseen by the caller.
    const dto = snapshotDto({
      id,
      documentId: input.documentId,
      name: input.name,
      description: input.description ?? "",
      ...frozen,
      contentKey: null,
      contentSize: 0,
      docxKey: null,
      userId: ctx.user.id,
      createdAt: ctx.now,
      updatedAt: ctx.now,
    });
    // A keyed request's answer commits with the snapshot, kept only if it was taken at the versions it names
    // (services/idempotency.ts): a crash cannot part them, and a retry replays instead of taking a second one.
    const kept = await keptAnswerStatements(ctx, {
      d1,
      payload: { data: dto },
      when: { sql: "EXISTS (SELECT 1 FROM snapshots WHERE id = ?)", params: [id] },
    });
    const [taken] = await d1.batch([
      snapshotInsertStatement(d1, {
        id,
        documentId: input.documentId,
        name: input.name,
        description: input.description ?? "",
        userId: ctx.user.id,
        at: ctx.now,
        frozen,
      }),
      ...kept,
    ]);
    if (taken!.results.length) return dto;
    // The document changed (or went) between the read and the write: read again.
    if (attempt >= SNAPSHOT_ATTEMPTS) throw conflict("The document changed while its snapshot was taken; retry");
  }
}

/** GET /snapshot/all/{documentId}: read access; newest first. One D1 round trip. */
export async function listSnapshots(
  ctx: ServiceContext,
  { documentId }: { documentId: string },
): Promise<SnapshotDto[]> {
  const [docs, wsRoles, docRoles, rows] = await read(ctx, [
    ...documentsAccessStatements(ctx.db, ctx.user.ref, [documentId]),
    ctx.db.select().from(snapshots).where(eq(snapshots.documentId, documentId)).orderBy(desc(snapshots.id)),
  ]);
  checkDocumentAccess(assembleDocumentsAccess([docs, wsRoles, docRoles]).get(documentId), "read");
  return rows.map(snapshotDto);
}

export interface SnapshotRead {
  etag: string;
  dto: SnapshotDto;
  /** The frozen blocks as stored JSON text; reads R2 only when called. */
  blocksJson(): Promise<string>;
}

/** GET /snapshot/{id}: read access to its document; one D1 round trip, the blocks from R2 only when sent. */
export async function getSnapshot(ctx: ServiceContext, { snapshotId }: { snapshotId: string }): Promise<SnapshotRead> {
  const { snapshot } = await loadSnapshot(ctx, snapshotId, "read");
  return {
    etag: await snapshotEtag(snapshot),
    dto: snapshotDto(snapshot),
    blocksJson: () => snapshotBlocksJson(ctx.env.BLOBS, snapshot),
  };
}

/** The frozen blocks as stored JSON text. */
export async function snapshotBlocksJson(r2: R2Bucket, row: SnapshotRow): Promise<string> {
  if (!row.contentKey) return EMPTY_BLOCKS_JSON;
  const obj = await r2.get(row.contentKey);
  // Gone only when the snapshot was deleted after we read it.
  if (!obj) throw notFound("Snapshot");
  return obj.text();
}

/**
 * E8 PUT /snapshot/{id}: renames or re-describes (at least one, else 400); edit access. With If-Match the update is
 * conditional on the record it checked, so a concurrent change makes it 412 instead of being overwritten. Returns the
 * updated snapshot's ETag (the one its GET now answers), so a client can chain the next If-Match on it.
 */
export async function updateSnapshot(
  ctx: ServiceContext,
  input: { snapshotId: string; patch: { name?: string; description?: string }; expected?: ExpectedVersion },
): Promise<{ etag: string }> {
  const { snapshotId, patch, expected } = input;
  if (patch.name === undefined && patch.description === undefined) {
    throw validation("Provide at least one of name and description", [
      { path: "body", message: "name or description is required" },
    ]);
  }
  const { snapshot } = await loadSnapshot(ctx, snapshotId, "edit");
  await assertSnapshotIfMatch(expected, snapshot);
  const updated = await ctx.db
    .update(snapshots)
    .set({
      ...(patch.name !== undefined && { name: patch.name }),
      ...(patch.description !== undefined && { description: patch.description }),
      updatedAt: Math.max(ctx.now, snapshot.updatedAt + 1),
    })
    .where(and(eq(snapshots.id, snapshotId), ...(expected !== undefined ? unchanged(snapshot) : [])))
    .returning();
  if (!updated[0]) throw expected !== undefined ? preconditionFailed() : notFound("Snapshot");
  return { etag: await snapshotEtag(updated[0]) };
}

/** Conditions that hold while the snapshot is still the record an If-Match was checked against. */
function unchanged(row: SnapshotRow) {
  return [
    eq(snapshots.name, row.name),
    eq(snapshots.description, row.description),
    eq(snapshots.updatedAt, row.updatedAt),
  ];
}

/** DELETE /snapshot/{id}: edit access; If-Match → 412 when the snapshot changed. Two D1 round trips. */
export async function deleteSnapshot(
  ctx: ServiceContext,
  input: { snapshotId: string; expected?: ExpectedVersion },
): Promise<void> {
  const { snapshotId, expected } = input;
  const { snapshot } = await loadSnapshot(ctx, snapshotId, "edit");
  await assertSnapshotIfMatch(expected, snapshot);
  const deleted = await dropSnapshot(ctx.db, ctx.env.BLOBS, snapshot, expected !== undefined);
  if (!deleted && expected !== undefined) throw preconditionFailed();
}

/**
 * Hard-deletes the snapshot (only while unchanged when `ifUnchanged`) and its content object unless the current
 * content or another snapshot shares it. Whether a row was deleted.
 */
async function dropSnapshot(db: Db, r2: R2Bucket, row: SnapshotRow, ifUnchanged = false): Promise<boolean> {
  const d1 = d1Of(db);
  const statements = dropSnapshotStatements(d1, row, ifUnchanged);
  const [deleted, shared] = await d1.batch<{ shared: number }>(statements);
  const gone = deleted!.meta.changes === 1;
  if (gone && row.contentKey && !shared!.results[0]?.shared) await r2.delete(row.contentKey);
  return gone;
}
