/**
 * Updates received from sockets, not yet admitted. Each message's update is queued and the queue is flushed on the
 * next tick: messages that arrive while the previous flush's storage commit is in flight are admitted (each stored,
 * then applied: admission.ts) in one commit and broadcast together as one message, so a busy room pays one commit
 * per batch, not per keystroke. Nothing of a queued update is visible to anyone before it is stored.
 */
import * as Y from "yjs";
import type { Admitted, Refusal } from "./admission";

/** How long received updates wait for more before they are stored and sent as one batch. */
const FLUSH_DELAY_MS = 2;

/** An update the document integrated during a flush, with its origin (the socket it came from). */
export interface Integrated {
  origin: unknown;
  update: Uint8Array;
}

/** Stores, applies and checks one queued update (UpdateAdmission.admit). */
export type Admit = (ws: WebSocket, update: Uint8Array) => Admitted;

/** Sends what one flush integrated (`integrated` may be empty), then closes the `refused` sockets. */
export type BatchCommit = (integrated: Integrated[], refused: Map<WebSocket, Refusal>) => void;

export class UpdateBatcher {
  private inbox: { ws: WebSocket; update: Uint8Array }[] = [];
  private inboxBytes = 0;
  private flushTimer: ReturnType<typeof setTimeout> | null = null;

  constructor(
    private readonly admit: Admit,
    private readonly commit: BatchCommit,
  ) {}

  /** Bytes queued and not yet admitted (the room flushes at once when they alone pass the document limit). */
  get pendingBytes() {
    return this.inboxBytes;
  }

  enqueue(ws: WebSocket, update: Uint8Array) {
    this.inbox.push({ ws, update });
    this.inboxBytes += update.byteLength;
    this.flushTimer ??= setTimeout(() => this.flush(), FLUSH_DELAY_MS);
  }

  /** Admits the queued updates in order and hands what they changed, and the refused sockets, to the commit. */
  flush() {
    if (this.flushTimer) clearTimeout(this.flushTimer);
    this.flushTimer = null;
    if (this.inbox.length === 0) return;
    const batch = this.inbox;
    this.inbox = [];
    this.inboxBytes = 0;
    const integrated: Integrated[] = [];
    const refused = new Map<WebSocket, Refusal>();
    for (const { ws, update } of batch) {
      // A refused socket's later updates build on what was refused: none of them is admitted.
      if (refused.has(ws)) continue;
      const result = this.admit(ws, update);
      if (result.integrated) integrated.push(result.integrated);
      if (result.refusal) refused.set(ws, result.refusal);
    }
    this.commit(integrated, refused);
  }
}

/** One update for a batch (merged when it holds several), and the sole socket that sent all of it (else null). */
export function mergeBatch(integrated: Integrated[]): { merged: Uint8Array; soleOrigin: unknown } {
  const updates = integrated.map((c) => c.update);
  const merged = updates.length === 1 ? updates[0]! : Y.mergeUpdates(updates);
  const soleOrigin = integrated.every((c) => c.origin === integrated[0]!.origin) ? integrated[0]!.origin : null;
  return { merged, soleOrigin };
}
