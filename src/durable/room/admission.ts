/**
 * Admitting one socket's document update, in this order: what it adds beyond the room's state (`Y.diffUpdate`), the
 * document limit counted on what the room holds, block nesting (nesting.ts), storage, and only then applying it.
 * An update refused at any step — past the limit, too deep, or failing to store (a storage error) — was neither
 * stored nor applied, so no socket, later joiner or write-back ever sees a byte of it; its socket is closed with
 * the refusal's code. Broadcasting what was admitted is the caller's (DocumentRoom.commitBatch).
 */
import * as Y from "yjs";
import { MAX_BLOCK_DEPTH } from "../../lib/blockDepth";
import type { Integrated } from "./batching";
import { deepestAdded, MAX_NODE_DEPTH, withinLimits } from "./nesting";
import type { RoomStorage } from "./persistence";
import { CLOSE } from "./protocol";

/** Why a socket is closed: its close code and reason. */
export interface Refusal {
  code: number;
  reason: string;
}

/** What became of one update: what the document integrated of it (to broadcast), and a refusal that closes its socket. */
export interface Admitted {
  integrated?: Integrated;
  refusal?: Refusal;
}

const unparseable: Refusal = { code: CLOSE.unparseable, reason: "Unparseable message" };

export class UpdateAdmission {
  /** The document's update events while an admitted update is applied (null otherwise). */
  private captured: Uint8Array[] | null = null;

  constructor(private readonly store: RoomStorage) {}

  /** For the document's update listener: true while an admitted update is applied (it is stored already). */
  capture(update: Uint8Array): boolean {
    if (!this.captured) return false;
    this.captured.push(update);
    return true;
  }

  admit(ws: WebSocket, update: Uint8Array): Admitted {
    const { store } = this;
    const doc = store.doc;
    let fresh: Uint8Array;
    let nesting: ReturnType<typeof deepestAdded>;
    try {
      fresh = Y.diffUpdate(update, Y.encodeStateVector(doc));
      nesting = deepestAdded(doc, fresh);
    } catch (err) {
      console.warn("collab: closing a socket whose update could not be read", err instanceof Error ? err.message : err);
      return { refusal: unparseable };
    }
    const tooLarge = this.pastLimit(fresh.byteLength);
    if (tooLarge) return { refusal: tooLarge };
    if (!withinLimits(nesting)) {
      return {
        refusal: {
          code: CLOSE.tooDeep,
          reason: `Refused: blocks may nest at most ${MAX_BLOCK_DEPTH} levels deep (and XML nodes ${MAX_NODE_DEPTH})`,
        },
      };
    }
    let seq: number;
    try {
      seq = store.append(fresh, 1);
    } catch (err) {
      console.error("collab: an update could not be stored; refused", err instanceof Error ? err.message : err);
      return { refusal: { code: CLOSE.tooLarge, reason: "Refused: the update could not be stored" } };
    }
    this.captured = [];
    try {
      Y.applyUpdate(doc, fresh, ws);
      return { integrated: { origin: ws, update: fresh } };
    } catch (err) {
      // Decoded but not applicable: the storage keeps what Yjs integrated before it threw (the update events of
      // the failed transaction), so it holds what the document holds, and that part is sent like any edit.
      console.warn(
        "collab: closing a socket whose update could not be applied",
        err instanceof Error ? err.message : err,
      );
      const part =
        this.captured.length === 0
          ? null
          : this.captured.length === 1
            ? this.captured[0]!
            : Y.mergeUpdates(this.captured);
      store.replace(seq, fresh.byteLength, part);
      return { refusal: unparseable, ...(part && { integrated: { origin: ws, update: part } }) };
    } finally {
      this.captured = null;
    }
  }

  /**
   * The refusal when `bytes` more would take what the room holds past the document limit. Stored bytes bound the
   * encoded state from above (everything the document applied is stored first); only near the limit is the exact
   * size (with pending structs) computed, and storage that overstates it by much is compacted.
   */
  private pastLimit(bytes: number): Refusal | null {
    const { store } = this;
    const limit = store.limit.maxStateBytes;
    if (store.storedBytes + bytes <= limit) return null;
    const held = Y.encodeStateAsUpdate(store.doc).byteLength;
    if (held + bytes > limit)
      return {
        code: CLOSE.tooLarge,
        reason: `Refused: the document would exceed its ${Math.round(limit / 1024 / 1024)} MiB limit`,
      };
    if (store.storedBytes - held > limit / 8) store.compact();
    return null;
  }
}
