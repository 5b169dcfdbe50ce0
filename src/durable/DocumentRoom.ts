/**
 * One collaborative room per document (`idFromName(documentId)`), docs/api-guide.md › Automations, published portals,
 * collaborative editing: a Yjs document served over the y-websocket protocol (sync + awareness, y-protocols' wire
 * format) with the WebSocket Hibernation API, so an idle room costs nothing and wakes with its sockets intact.
 *
 * This class only wires the room's parts (src/durable/room/) to the Durable Object's entry points:
 * - persistence.ts: the Yjs document and its SQLite storage (store before apply and send, chunks under the 2 MB
 *   value limit, compaction, reload);
 * - admission.ts and nesting.ts: each received update checked (document limit, block nesting), stored, then applied;
 * - protocol.ts, batching.ts, presence.ts, sockets.ts: the wire messages, the batching of received updates into one
 *   commit and one broadcast, and relayed presence;
 * - limits.ts: the socket caps (checked at upgrade) and each socket's message rate;
 * - access.ts: re-checking connected users when access changes, and single-use connection tickets;
 * - opening.ts and writeBack.ts: the room's first state from the document's content, and edits written back to it;
 * - diagnostics.ts: the one inspection surface (operators, the benchmark, tests).
 *
 * A viewer's document updates are refused (an y-protocols auth "permission denied" message) and never applied; an
 * update that would take the state past its cap or cannot be stored closes the socket with 1009, one nesting blocks
 * too deep with 4422; a socket past its message rate is closed with 4429, one past the room's or its user's socket
 * cap with 4503; anything outside the protocol closes only the socket that sent it, with 1003.
 */
import { DurableObject } from "cloudflare:workers";
import type { Env } from "../env";
import { ApiError, type ErrorCode } from "../errors";
import { isBlockArray, writeBlocks } from "../services/collab/blocks";
import { recheckAccess, Tickets } from "./room/access";
import { UpdateAdmission, type Refusal } from "./room/admission";
import { mergeBatch, UpdateBatcher, type Integrated } from "./room/batching";
import { diagnose, type Diagnostics, type DiagnosticsRequest } from "./room/diagnostics";
import { MessageRate, MESSAGE_BURST, MESSAGES_PER_SECOND, socketRefusal } from "./room/limits";
import { RoomOpener, type CollabSession } from "./room/opening";
import { RoomStorage } from "./room/persistence";
import { Presence } from "./room/presence";
import {
  CLOSE,
  commentsMessage,
  decodeAwareness,
  dispatch,
  MAX_AWARENESS_STATE_BYTES,
  isEmptyUpdate,
  permissionDeniedMessage,
  syncStep1Message,
  syncStep2Message,
  Unparseable,
  updateMessage,
} from "./room/protocol";
import { attachmentOf, broadcast, closeQuietly, send, type Attachment } from "./room/sockets";
import { storeContent, WriteBack } from "./room/writeBack";
import type { EntryBy } from "../services/changes/recordLog";

export type RoomResult<T> = { ok: true; value: T } | { ok: false; error: { code: ErrorCode; message: string } };

export class DocumentRoom extends DurableObject<Env> {
  private readonly store: RoomStorage;
  private readonly batcher: UpdateBatcher;
  private readonly admission: UpdateAdmission;
  private readonly rate = new MessageRate();
  private readonly presence = new Presence();
  private readonly opener: RoomOpener;
  private readonly writeBack: WriteBack;
  private readonly tickets: Tickets;

  constructor(ctx: DurableObjectState, env: Env) {
    super(ctx, env);
    this.store = new RoomStorage(ctx.storage, (update, origin) => this.onUpdate(update, origin));
    this.tickets = new Tickets(ctx.storage.sql);
    this.admission = new UpdateAdmission(this.store);
    this.batcher = new UpdateBatcher(
      (ws, update) => this.admission.admit(ws, update),
      (integrated, refused) => this.commitBatch(integrated, refused),
    );
    this.opener = new RoomOpener(env, this.store, () => this.ctx.getWebSockets().length);
    this.writeBack = new WriteBack(ctx, env, this.store, () => this.batcher.flush());
    this.presence.restore(this.ctx.getWebSockets());
  }

  // ───────────────────────────── updates ─────────────────────────────

  /**
   * Every integrated update of the room's own transactions ("content": a content write that is already stored;
   * "seed": the content the room was opened with): stored, then sent to the sockets. A socket's update was stored
   * before it was applied (admission.ts) and is sent with its batch.
   */
  private onUpdate(update: Uint8Array, origin: unknown) {
    if (this.admission.capture(update)) return;
    this.store.append(update, 1);
    broadcast(this.ctx.getWebSockets(), updateMessage(update), origin);
    if (origin !== "content" && origin !== "seed") this.writeBack.markDirty(origin);
    if (this.store.compactionDue) this.compact();
  }

  /** A flush's updates, each stored already: one message per socket (the only sender of a batch gets nothing). */
  private commitBatch(integrated: Integrated[], refused: Map<WebSocket, Refusal>) {
    if (integrated.length > 0) {
      const { merged, soleOrigin } = mergeBatch(integrated);
      // A socket that sent part of a mixed batch gets its own part back too, which Yjs ignores.
      broadcast(this.ctx.getWebSockets(), updateMessage(merged), soleOrigin);
      this.writeBack.markDirty(integrated[integrated.length - 1]!.origin);
    }
    for (const [ws, { code, reason }] of refused) this.closeSocket(ws, code, reason);
    if (integrated.length > 0 && this.store.compactionDue) this.compact();
  }

  private compact() {
    this.batcher.flush();
    this.store.compact();
  }

  // ───────────────────────────── sockets ─────────────────────────────

  override async fetch(request: Request): Promise<Response> {
    if (request.headers.get("upgrade")?.toLowerCase() !== "websocket")
      return new Response("Expected a WebSocket upgrade", { status: 426 });
    const session = JSON.parse(request.headers.get("x-collab-session") ?? "null") as CollabSession | null;
    if (!session) return new Response("Missing session", { status: 400 });
    await this.opener.open(session);
    const pair = new WebSocketPair();
    const [client, server] = [pair[0], pair[1]];
    // The caps are counted here, after the last await, so concurrent upgrades cannot all pass them. A refused socket
    // is accepted and closed at once (4503 with its reason): a Yjs provider reports the code and retries later,
    // where a refused upgrade would only show it a network error.
    const full = socketRefusal(
      this.ctx.getWebSockets(),
      session.userId,
      this.store.limit.maxSockets,
      (ws) => attachmentOf(ws)?.userId,
    );
    if (full) {
      server.accept();
      server.close(CLOSE.full, full);
      return new Response(null, { status: 101, webSocket: client });
    }
    const wasEmpty = this.ctx.getWebSockets().length === 0;
    this.ctx.acceptWebSocket(server, [session.userId]);
    server.serializeAttachment({ userId: session.userId, canEdit: session.canEdit, presence: {} } satisfies Attachment);
    // y-websocket's opening: the room's state vector (the client answers with what the room lacks) and presence.
    send(server, syncStep1Message(this.store.doc));
    const everyone = this.presence.everyone();
    if (everyone) send(server, everyone);
    if (wasEmpty) this.ctx.waitUntil(this.opener.setLive(session.documentId, true));
    return new Response(null, { status: 101, webSocket: client });
  }

  override async webSocketMessage(ws: WebSocket, message: ArrayBuffer | string) {
    if (ws.readyState !== WebSocket.OPEN) return;
    if (!this.rate.take(ws)) {
      // Nothing of this message or later ones is applied; the provider reconnects and syncs what the room lacks.
      this.closeSocket(
        ws,
        CLOSE.rateLimited,
        `Refused: message rate over ${MESSAGES_PER_SECOND} a second (burst ${MESSAGE_BURST})`,
      );
      return;
    }
    try {
      if (typeof message === "string") throw new Unparseable("text frames are not part of the protocol");
      dispatch(new Uint8Array(message), {
        syncStep1: (stateVector) => {
          // Everything received so far is stored first, so the answer holds it (and nothing unstored).
          this.batcher.flush();
          send(ws, syncStep2Message(this.store.doc, stateVector));
        },
        update: (update) => this.receiveUpdate(ws, update),
        awareness: (update) => this.receiveAwareness(ws, update),
        queryAwareness: () => {
          const everyone = this.presence.everyone();
          if (everyone) send(ws, everyone);
        },
      });
    } catch (err) {
      // Whatever a message's bytes make the decoders throw (lib0 bounds, JSON, Yjs structure), only this socket
      // pays: it is closed with 1003 and nothing of the message was applied.
      console.warn("collab: closing a socket after an unparseable message", err instanceof Error ? err.message : err);
      this.closeSocket(ws, CLOSE.unparseable, "Unparseable message");
    }
  }

  /** A document update: refused for a viewer, else queued for the next batch (admission.ts checks and stores it). */
  private receiveUpdate(ws: WebSocket, update: Uint8Array) {
    // An empty update (a sync step 2 with nothing the room lacks) is no edit, also from a viewer.
    if (isEmptyUpdate(update)) return;
    if (!attachmentOf(ws)!.canEdit) {
      send(
        ws,
        permissionDeniedMessage(
          "read-only: your role on this document does not allow editing; the update was not applied",
        ),
      );
      return;
    }
    this.batcher.enqueue(ws, update);
    // The queue counts as held too: it is admitted at once when it alone would pass the document limit.
    if (this.store.storedBytes + this.batcher.pendingBytes > this.store.limit.maxStateBytes) this.batcher.flush();
  }

  /** Presence: a message refused part-way (1003, or 1009 for an oversized state) leaves nothing behind. */
  private receiveAwareness(ws: WebSocket, update: Uint8Array) {
    const { entries, oversized } = decodeAwareness(update);
    if (oversized) {
      this.closeSocket(ws, CLOSE.tooLarge, `Refused: a presence state may not pass ${MAX_AWARENESS_STATE_BYTES} bytes`);
      return;
    }
    const message = this.presence.receive(ws, entries);
    if (message) broadcast(this.ctx.getWebSockets(), message, ws);
  }

  private closeSocket(ws: WebSocket, code: number, reason: string) {
    closeQuietly(ws, code, reason);
    this.left(ws);
  }

  override async webSocketClose(ws: WebSocket, code: number) {
    closeQuietly(ws, code === 1005 || code === 1006 || code === 1015 ? 1000 : code, "closing");
    this.left(ws);
  }

  override async webSocketError(ws: WebSocket) {
    this.left(ws);
  }

  /** A socket is gone: its presence is removed for the others; the last one out compacts the room. */
  private left(ws: WebSocket) {
    const message = this.presence.leave(ws);
    if (message) broadcast(this.ctx.getWebSockets(), message, ws);
    const remaining = this.ctx.getWebSockets().filter((other) => other !== ws && other.readyState === WebSocket.OPEN);
    if (remaining.length > 0) return;
    this.compact();
    const documentId = this.opener.documentId;
    if (documentId) this.ctx.waitUntil(this.opener.setLive(documentId, false));
  }

  /** The debounced write-back: the blocks as they are now become a new content version. */
  override async alarm() {
    await this.writeBack.run();
  }

  // ───────────────────────────── RPC ─────────────────────────────

  /**
   * Replaces the blocks as one Yjs transaction that connected editors receive (PUT content, snapshot restore).
   * With `store`, the content write happens here first (after writing pending live edits back, so a stale
   * `baseVersion` is a 409 and nothing changes); without it the caller already stored the content. Blocks that are
   * not BlockNote JSON are stored as given and leave the shared document empty.
   */
  async replaceBlocks(input: {
    documentId: string;
    userId: string;
    blocksJson: string;
    baseVersion?: number;
    store: boolean;
    /** Who the change log names for the stored version (the PUT's caller, source `api`). */
    by?: EntryBy;
  }): Promise<RoomResult<{ version: number | null }>> {
    try {
      await this.opener.open({ documentId: input.documentId, userId: input.userId, kind: "DOCUMENT", seededAt: null });
      let version: number | null = null;
      if (input.store) {
        await this.writeBack.run();
        ({ version } = await storeContent(this.env, {
          documentId: input.documentId,
          userId: input.userId,
          blocksJson: input.blocksJson,
          baseVersion: input.baseVersion,
          by: input.by,
        }));
      }
      const blocks: unknown = JSON.parse(input.blocksJson);
      this.batcher.flush();
      this.store.doc.transact(() => writeBlocks(this.store.fragment, isBlockArray(blocks) ? blocks : []), "content");
      return { ok: true, value: { version } };
    } catch (err) {
      if (err instanceof ApiError) return { ok: false, error: { code: err.code, message: err.message } };
      throw err;
    }
  }

  /** Writes pending live edits back now (a snapshot taken next freezes them); the new version or null. */
  async flush(): Promise<number | null> {
    return this.writeBack.run();
  }

  /**
   * Re-checks connected users against the document's current access (all of them, or `userIds`): those who can no
   * longer read are disconnected (4403), the others keep or lose the right to edit. Returns how many were dropped.
   */
  async revalidateAccess(userIds?: string[]): Promise<{ disconnected: number }> {
    const documentId = this.opener.documentId;
    if (!documentId) return { disconnected: 0 };
    const revoke = (ws: WebSocket) => this.closeSocket(ws, CLOSE.accessRevoked, "Access to this document was removed");
    return { disconnected: await recheckAccess(this.env, documentId, this.ctx.getWebSockets(), userIds, revoke) };
  }

  /** Tells every connected client that a comment thread of the document changed (the `comments` message). */
  async commentsChanged(change: { change: string; threadId: string; commentId: string }): Promise<void> {
    broadcast(this.ctx.getWebSockets(), commentsMessage(change));
  }

  /** A single-use connection ticket for `userId`, valid `ttlMs` (stored hashed; redeemed by `redeemTicket`). */
  async issueTicket(userId: string, ttlMs: number): Promise<{ ticket: string; expiresAt: number }> {
    return this.tickets.issue(userId, ttlMs);
  }

  /** The user a ticket was issued to, or null (unknown, expired or already used); a ticket is redeemed once. */
  async redeemTicket(ticket: string): Promise<string | null> {
    return this.tickets.redeem(ticket);
  }

  /** Whether a ticket would be accepted now, without using it up (a plain GET must not burn it). */
  async ticketValid(ticket: string): Promise<boolean> {
    return this.tickets.valid(ticket);
  }

  /** The one inspection surface (room/diagnostics.ts): limits, compaction, reload timing, blocks, then the stats. */
  async diagnostics(request: DiagnosticsRequest = {}): Promise<Diagnostics> {
    return diagnose(
      {
        store: this.store,
        flushPending: () => this.batcher.flush(),
        compact: () => this.compact(),
        documentId: () => this.opener.documentId,
        connections: () => this.ctx.getWebSockets().length,
        dirty: () => this.writeBack.dirty,
      },
      request,
    );
  }
}
