/**
 * Restoring a snapshot (docs/api-guide.md › Content, snapshots and references): POST /snapshot/{id}/restore copies the
 * frozen blocks into a new content version and records the frozen DOCX blob as a new newest DOCX version, after
 * snapshotting the current state as "Before restore". Reading, taking and editing snapshots is ./snapshots.ts.
 */
import { d1Of } from "../../db/d1";
import type { ServiceContext } from "../context";
import { roomOf, unwrapRoom } from "../collab/rooms";
import { isDocx } from "../docx/store";
import { contentBodyStatement, docxBodyStatement } from "../search/queries";
import { assertContentDepth } from "./depth";
import { contentBumpStatement, restoreDocxStatements, snapshotInsertStatement } from "./queries";
import { loadSnapshot, snapshotBlocksJson } from "./snapshots";
import { contentObjectKey } from "./store";
import { anchorsStatement, announceAnchorChanges } from "../comments/anchors";
import { asStatements, contentEntryQuery, docxEntryQuery, entryBy } from "../changes/recordLog";

export interface RestoreResult {
  contentVersion: number;
  docxVersion: number | null;
  beforeRestoreSnapshotId: string;
}

/**
 * POST /snapshot/{id}/restore: edit access. One D1 transaction snapshots the current state as "Before restore"
 * (which keeps the content object being replaced), makes a copy of the frozen blocks the new content version and,
 * for a DOCX snapshot of a DOCX document, records the frozen blob as the newest DOCX version; nothing can interleave,
 * so nothing is lost. Two D1 round trips.
 */
export async function restoreSnapshot(
  ctx: ServiceContext,
  { snapshotId }: { snapshotId: string },
): Promise<RestoreResult> {
  const { snapshot, access, hasRoom } = await loadSnapshot(ctx, snapshotId, "edit");
  const r2 = ctx.env.BLOBS;
  const blocksJson = await snapshotBlocksJson(r2, snapshot);
  // Content frozen before the nesting bound existed may be deeper than it; a restore is a write and keeps the bound.
  assertContentDepth(parsedOrNull(blocksJson), "The snapshot's content");
  const documentId = snapshot.documentId;
  // A document with a collaborative room (docs/api-guide.md › Automations, published portals, collaborative editing): its live edits are written back first, so "Before restore"
  // holds them, and after the restore the room applies the restored blocks as one transaction editors receive.
  const room = hasRoom ? roomOf(ctx.env, documentId) : null;
  if (room) await room.flush();
  const userId = ctx.user.id;
  const t = ctx.now;
  const key = contentObjectKey(documentId);
  await r2.put(key, blocksJson, { httpMetadata: { contentType: "application/json" } });

  const d1 = d1Of(ctx.db);
  const beforeId = ctx.ids.beside(documentId);
  const restoresDocx = snapshot.docxVersion !== null && snapshot.docxKey !== null && isDocx(access.doc);
  // The search index's text of a file follows the restored version (docs/api-guide.md › Search).
  const frozenDocx = restoresDocx ? await r2.get(snapshot.docxKey!) : null;
  const frozenBytes = frozenDocx ? new Uint8Array(await frozenDocx.arrayBuffer()) : null;
  const anchors = anchorsStatement(d1, documentId, key, blocksJson);
  const statements = [
    snapshotInsertStatement(d1, {
      id: beforeId,
      documentId,
      name: "Before restore",
      description: `Automatic snapshot before restoring "${snapshot.name}"`,
      userId,
      at: t,
    }),
    contentBumpStatement(d1, { documentId, size: new TextEncoder().encode(blocksJson).byteLength, key, userId, at: t }),
    ...(restoresDocx ? restoreDocxStatements(d1, documentId, snapshot.docxVersion!, snapshot.docxKey!, userId, t) : []),
    contentBodyStatement(d1, documentId, key, blocksJson),
    ...(anchors ? [anchors] : []),
    ...(frozenBytes ? [docxBodyStatement(d1, documentId, snapshot.docxKey!, frozenBytes)] : []),
    ...asStatements(d1, contentEntryQuery(ctx, { documentId, key, by: entryBy(ctx, "restore") })),
    ...(restoresDocx
      ? asStatements(d1, docxEntryQuery(ctx, { documentId, r2Key: snapshot.docxKey!, by: entryBy(ctx, "restore") }))
      : []),
  ];
  let results: D1Result<{ version: number }>[];
  try {
    results = await d1.batch<{ version: number }>(statements);
  } catch (err) {
    await r2.delete(key);
    throw err;
  }
  const [, bumped, docx] = results;
  if (room) unwrapRoom(await room.replaceBlocks({ documentId, userId, blocksJson, store: false }));
  announceAnchorChanges(ctx, documentId, anchors ? results[statements.indexOf(anchors)] : undefined);
  return {
    contentVersion: bumped!.results[0]!.version,
    docxVersion: restoresDocx ? (docx!.results[0]?.version ?? null) : null,
    beforeRestoreSnapshotId: beforeId,
  };
}

/** The snapshot's blocks parsed, or null when they are not JSON (assertContentDepth then has nothing to bound). */
function parsedOrNull(json: string): unknown {
  try {
    return JSON.parse(json);
  } catch {
    return null;
  }
}
