/**
 * Anchors that survive editing (docs/api-guide.md › Comments): a thread anchored to a block follows the block's id;
 * every content write of services/content (writeContent: PUT /document/{id}/content and the collaborative room's
 * write-back; and a snapshot's restore) marks the document's threads `detached` when their block is no longer
 * in the blocks, and attached again when it is back. One statement in the write's own transaction.
 */
import { statement } from "../../db/d1";

/**
 * For the content write's batch: sets `detached` on the document's anchored comments from the block ids of
 * `blocksJson` (every `id` member at any depth, so nested children count), only if the write's object under `key`
 * became the current content (a stale write changes nothing). No anchored comments: nothing is scanned.
 */
export function anchorsStatement(d1: D1Database, documentId: string, key: string, blocksJson: string) {
  return statement(
    d1,
    `UPDATE comments SET detached = (block_id NOT IN (SELECT value FROM json_tree(?1) WHERE key = 'id' AND type = 'text'))
       WHERE document_id = ?2 AND block_id IS NOT NULL AND json_valid(?1)
         AND EXISTS (SELECT 1 FROM document_contents c WHERE c.document_id = ?2 AND c.r2_key = ?3)
         AND detached IS NOT (block_id NOT IN (SELECT value FROM json_tree(?1) WHERE key = 'id' AND type = 'text'))`,
    blocksJson,
    documentId,
    key,
  );
}
