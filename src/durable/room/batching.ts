/**
 * Updates received from sockets, not yet integrated. Each message's update is queued and the queue is flushed on the
 * next tick: messages that arrive while the previous flush's storage commit is in flight are integrated, stored (one
 * row, one commit) and broadcast together, so a busy room pays one commit per batch, not per keystroke. Nothing of a
 * queued update is visible to anyone before it is stored.
 */
import * as Y from "yjs";

/** How long received updates wait for more before they are stored and sent as one batch. */
const FLUSH_DELAY_MS = 2;

/** An update the document integrated during a flush, with its origin (the socket it came from). */
export interface Integrated {
  origin: unknown;
  update: Uint8Array;
}

/**
 * Stores and sends what one flush integrated (`integrated` may be empty), then closes the `broken` sockets, whose
 * update decoded but could not be applied.
 */
export type BatchCommit = (integrated: Integrated[], broken: Set<WebSocket>) => void;

export class UpdateBatcher {
  private inbox: { ws: WebSocket; update: Uint8Array }[] = [];
  private inboxBytes = 0;
  private flushTimer: ReturnType<typeof setTimeout> | null = null;
  /** Integrated updates of the flush in progress. */
  private collecting: Integrated[] | null = null;

  constructor(
    private readonly doc: () => Y.Doc,
    private readonly commit: BatchCommit,
  ) {}

  /** Bytes queued and not yet integrated (they count against the state cap). */
  get pendingBytes() {
    return this.inboxBytes;
  }

  enqueue(ws: WebSocket, update: Uint8Array) {
    this.inbox.push({ ws, update });
    this.inboxBytes += update.byteLength;
    this.flushTimer ??= setTimeout(() => this.flush(), FLUSH_DELAY_MS);
  }

  /**
   * For the document's update listener: during a flush, the update joins the batch (true) and the commit stores
   * and sends it; otherwise (false) the caller stores and sends it alone.
   */
  collect(update: Uint8Array, origin: unknown): boolean {
    if (!this.collecting) return false;
    this.collecting.push({ origin, update });
    return true;
  }

  /** Integrates the queued updates and hands what they changed to the commit. */
  flush() {
    if (this.flushTimer) clearTimeout(this.flushTimer);
    this.flushTimer = null;
    if (this.inbox.length === 0) return;
    const batch = this.inbox;
    this.inbox = [];
    this.inboxBytes = 0;
    const integrated: Integrated[] = [];
    const broken = new Set<WebSocket>();
    this.collecting = integrated;
    try {
      for (const { ws, update } of batch) {
        if (broken.has(ws)) continue;
        try {
          Y.applyUpdate(this.doc(), update, ws);
        } catch (err) {
          // Whatever Yjs integrated before throwing came through the listener, so it is stored like any edit.
          console.warn("collab: closing a socket whose update could not be applied", err instanceof Error ? err.message : err);
          broken.add(ws);
        }
      }
    } finally {
      this.collecting = null;
    }
    this.commit(integrated, broken);
  }
}

/** One update for a batch (merged when it holds several), and the sole socket that sent all of it (else null). */
export function mergeBatch(integrated: Integrated[]): { merged: Uint8Array; soleOrigin: unknown } {
  const updates = integrated.map((c) => c.update);
  const merged = updates.length === 1 ? updates[0]! : Y.mergeUpdates(updates);
  const soleOrigin = integrated.every((c) => c.origin === integrated[0]!.origin) ? integrated[0]!.origin : null;
  return { merged, soleOrigin };
}
