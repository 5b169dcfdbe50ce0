/**
 * Anchors that survive editing (docs/api-guide.md › Comments): a thread anchored to a block follows the block's id;
 * every content write of services/content (writeContent: PUT /document/{id}/content and the collaborative room's
 * write-back; and a snapshot's restore) marks the document's threads `detached` when their block is no longer in the
 * blocks, and attached again when it is back. One statement in the write's own transaction, which answers the threads
 * it changed: after the write, each is announced (a `comment.updated` event, and a `comments` message with change
 * "detached" or "attached" to the document's room when it has connected clients) at no extra round trip.
 */
import { statement } from "../../db/d1";
import type { ServiceContext } from "../context";
import { commentEvent, emitAfterResponse } from "../events/events";
import { tellRoom } from "./room";

/** Bound values stay well under D1's limit on one string (the block ids of a large document are split). */
const CHUNK_CHARS = 500_000;

/** The ids of `blocksJson`'s blocks at every depth (through `children`), or null when it is not a block list. */
function blockIds(blocksJson: string): string[] | null {
  let blocks: unknown;
  try {
    blocks = JSON.parse(blocksJson);
  } catch {
    return null;
  }
  if (!Array.isArray(blocks)) return null;
  const out: string[] = [];
  const stack: unknown[] = [...blocks];
  while (stack.length) {
    const b = stack.pop();
    if (!b || typeof b !== "object") continue;
    const { id, children } = b as { id?: unknown; children?: unknown };
    if (typeof id === "string") out.push(id);
    if (Array.isArray(children)) stack.push(...(children as unknown[]));
  }
  return out;
}

/** `ids` as JSON arrays of at most CHUNK_CHARS characters each (at least one). */
function chunks(ids: string[]): string[] {
  const out: string[] = [];
  let part: string[] = [];
  let size = 0;
  for (const id of ids) {
    if (size + id.length + 3 > CHUNK_CHARS && part.length) {
      out.push(JSON.stringify(part));
      part = [];
      size = 0;
    }
    part.push(id);
    size += id.length + 3;
  }
  out.push(JSON.stringify(part));
  return out;
}

/** A comment whose anchor the write detached or attached again, as the statement answers it. */
interface AnchorChange {
  id: string;
  thread_id: string;
  detached: number;
  project_id: string;
  parent_id: string | null;
  live_room: number;
}

/**
 * For the content write's batch: sets `detached` on the document's anchored comments from the block ids of
 * `blocksJson`, only if the write's object under `key` became the current content (a stale write changes nothing).
 * No anchored comments: nothing is scanned. Null (no statement) when the content is not a block list. Answers the
 * comments it changed (for announceAnchorChanges), with the document's parent and whether its room has clients.
 */
export function anchorsStatement(d1: D1Database, documentId: string, key: string, blocksJson: string) {
  const ids = blockIds(blocksJson);
  if (!ids) return null;
  const parts = chunks(ids);
  const present = parts.map((_, i) => `SELECT value FROM json_each(?${i + 3})`).join(" UNION ALL ");
  return statement(
    d1,
    `UPDATE comments SET detached = (block_id NOT IN (${present}))
       WHERE document_id = ?1 AND block_id IS NOT NULL
         AND EXISTS (SELECT 1 FROM document_contents c WHERE c.document_id = ?1 AND c.r2_key = ?2)
         AND detached IS NOT (block_id NOT IN (${present}))
       RETURNING id, thread_id, detached, project_id,
         (SELECT parent_id FROM documents WHERE id = ?1) AS parent_id,
         EXISTS (SELECT 1 FROM collab_rooms WHERE document_id = ?1 AND live = 1) AS live_room`,
    documentId,
    key,
    ...parts,
  );
}

/**
 * After the content write committed: for each comment the anchors statement (its `result`) detached or attached
 * again, a `comment.updated` event, and the document's room told (change "detached" or "attached") when it has
 * connected clients. Nothing to do, nothing sent.
 */
export function announceAnchorChanges(ctx: ServiceContext, documentId: string, result: D1Result | undefined): void {
  const changed = (result?.results ?? []) as AnchorChange[];
  if (!changed.length) return;
  emitAfterResponse(
    ctx,
    changed.map((c) =>
      commentEvent("comment.updated", { projectId: c.project_id, documentId, tableId: null, rowId: null }, [
        documentId,
        ...(c.parent_id ? [c.parent_id] : []),
      ]),
    ),
  );
  if (!changed[0]!.live_room) return;
  for (const c of changed)
    tellRoom(ctx, documentId, { change: c.detached ? "detached" : "attached", threadId: c.thread_id, commentId: c.id });
}
