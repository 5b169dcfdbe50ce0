/**
 * Snapshots freeze a document's content (and its newest DOCX version). Taking one copies nothing: the snapshot
 * points at the current content object, which the next content write then keeps instead of deleting; DOCX objects
 * are never deleted, so a snapshot only names its version. Restore copies the frozen blocks into a new content
 * version and records the frozen DOCX blob as a new newest DOCX version.
 */
import { desc, eq } from "drizzle-orm";
import { documents, snapshots } from "../../db/schema";
import { d1Of } from "../../db/d1";
import type { Db, Env } from "../../env";
import { notFound } from "../../errors";
import { newId, now } from "../../lib/ids";
import { EMPTY_BLOCKS_JSON, writeContent } from "./store";
import { blobIdOfKey, docxExternal } from "../docx/store";
import { roomHasState, roomOf } from "../collab/rooms";

export type SnapshotRow = typeof snapshots.$inferSelect;

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
 * Freezes the document's current content and newest DOCX version in one statement, so it points at whatever was
 * current at that instant even while a content write races it.
 */
export async function takeSnapshot(db: Db, input: { documentId: string; name: string; description?: string; userId: string }): Promise<SnapshotRow> {
  const id = newId();
  const t = now();
  const row = await d1Of(db)
    .prepare(
      `INSERT INTO snapshots (id, document_id, name, description, content_version, content_key, content_size, docx_version, docx_key, user_id, created_at, updated_at)
       SELECT ?, d.id, ?, ?, COALESCE(c.version, 0), c.r2_key, COALESCE(c.size, 0), v.version, v.r2_key, ?, ?, ?
       FROM documents d
       LEFT JOIN document_contents c ON c.document_id = d.id
       LEFT JOIN docx_versions v ON v.document_id = d.id
         AND v.version = (SELECT MAX(version) FROM docx_versions WHERE document_id = d.id)
         AND d.type = 'EXTERNAL' AND json_extract(d.external, '$.type') = 'DOCX'
       WHERE d.id = ?
       RETURNING id`,
    )
    .bind(id, input.name, input.description ?? "", input.userId, t, t, input.documentId)
    .first<{ id: string }>();
  if (!row) throw notFound("Document");
  return (await findSnapshot(db, id))!;
}

export async function findSnapshot(db: Db, id: string): Promise<SnapshotRow | null> {
  const [row] = await db.select().from(snapshots).where(eq(snapshots.id, id));
  return row ?? null;
}

export async function listSnapshots(db: Db, documentId: string): Promise<SnapshotRow[]> {
  return db.select().from(snapshots).where(eq(snapshots.documentId, documentId)).orderBy(desc(snapshots.id));
}

/** The frozen blocks as stored JSON text. */
export async function snapshotBlocksJson(r2: R2Bucket, row: SnapshotRow): Promise<string> {
  if (!row.contentKey) return EMPTY_BLOCKS_JSON;
  const obj = await r2.get(row.contentKey);
  // Gone only when the snapshot was deleted after we read it.
  if (!obj) throw notFound("Snapshot");
  return obj.text();
}

/** Hard-deletes the snapshot and its content object unless the current content or another snapshot shares it. */
export async function deleteSnapshot(db: Db, r2: R2Bucket, row: SnapshotRow) {
  const d1 = d1Of(db);
  const statements = [d1.prepare("DELETE FROM snapshots WHERE id = ?").bind(row.id)];
  if (row.contentKey) {
    statements.push(
      d1
        .prepare("SELECT EXISTS (SELECT 1 FROM snapshots WHERE content_key = ?1) OR EXISTS (SELECT 1 FROM document_contents WHERE r2_key = ?1) AS shared")
        .bind(row.contentKey),
    );
  }
  const [deleted, shared] = await d1.batch<{ shared: number }>(statements);
  if (deleted!.meta.changes === 1 && row.contentKey && !shared!.results[0]?.shared) await r2.delete(row.contentKey);
}

export interface RestoreResult {
  contentVersion: number;
  docxVersion: number | null;
  beforeRestoreSnapshotId: string;
}

/**
 * Snapshots the current state as "Before restore", then writes the frozen blocks as a new content version
 * (conditional on the version that snapshot captured, so a write racing the restore is never silently lost: 409)
 * and, for a DOCX snapshot, records its blob as the newest DOCX version.
 */
export async function restoreSnapshot(
  db: Db,
  r2: R2Bucket,
  row: SnapshotRow,
  doc: typeof documents.$inferSelect,
  userId: string,
  env?: Env,
): Promise<RestoreResult> {
  const blocksJson = await snapshotBlocksJson(r2, row);
  // A document with a collaborative room: its live edits are written back first, so "Before restore" holds them,
  // and the restored blocks then reach the shared document (and its connected editors) as one transaction.
  const room = env && (await roomHasState(db, row.documentId)) ? roomOf(env, row.documentId) : null;
  if (room) await room.flush();
  const before = await takeSnapshot(db, { documentId: row.documentId, name: "Before restore", description: `Automatic snapshot before restoring "${row.name}"`, userId });
  let contentVersion: number;
  try {
    ({ version: contentVersion } = await writeContent(db, r2, { documentId: row.documentId, userId, blocksJson, baseVersion: before.contentVersion }));
  } catch (err) {
    await deleteSnapshot(db, r2, before);
    throw err;
  }
  let docxVersion: number | null = null;
  if (row.docxVersion !== null && row.docxKey && doc.type === "EXTERNAL" && doc.external?.type === "DOCX") {
    docxVersion = await restoreDocxVersion(db, row.documentId, row.docxVersion, row.docxKey, userId);
  }
  if (room) await room.replaceBlocks({ documentId: row.documentId, userId, blocksJson, store: false });
  return { contentVersion, docxVersion, beforeRestoreSnapshotId: before.id };
}

/** Records the frozen version's immutable blob again as the newest version; clears `seededAt`. */
async function restoreDocxVersion(db: Db, documentId: string, frozenVersion: number, frozenKey: string, userId: string): Promise<number> {
  const d1 = d1Of(db);
  const t = now();
  const external = docxExternal(documentId, blobIdOfKey(frozenKey));
  const [inserted] = await d1.batch<{ version: number }>([
    d1
      .prepare(
        `INSERT INTO docx_versions (document_id, version, r2_key, size, sha256, etag, created_by, created_at)
         SELECT f.document_id, (SELECT MAX(version) FROM docx_versions WHERE document_id = f.document_id) + 1, f.r2_key, f.size, f.sha256, f.etag, ?, ?
         FROM docx_versions f WHERE f.document_id = ? AND f.version = ?
         RETURNING version`,
      )
      .bind(userId, t, documentId, frozenVersion),
    d1.prepare("UPDATE documents SET external = ?, updated_at = ? WHERE id = ?").bind(JSON.stringify(external), t, documentId),
  ]);
  const version = inserted!.results[0]?.version;
  if (version === undefined) throw new Error(`DOCX version ${frozenVersion} of ${documentId} is missing`);
  return version;
}
