/**
 * One collaborative room per document (`idFromName(documentId)`), docs/api-guide.md › Automations, published portals, collaborative editing: a Yjs document served over the
 * y-websocket protocol (sync + awareness, y-protocols' wire format) with the WebSocket Hibernation API, so an idle
 * room costs nothing and wakes with its sockets intact.
 *
 * Durability: every update the room integrates is appended to its SQLite storage synchronously, before any socket is
 * sent a byte of it (and the output gate holds those sends until the write is durable), so whatever a client could
 * have seen survives an eviction. Every 2 000 updates and whenever the last socket leaves, the updates are compacted
 * into one encoded state stored in chunks under the 2 MB value limit. On wake the state and the updates after it are
 * loaded again: exactly what was persisted, nothing else.
 *
 * Access: the Worker authenticates and authorizes the upgrade and passes the caller in `x-collab-session`; the
 * socket's attachment keeps the user and whether they may edit. A viewer's document updates are refused (an
 * y-protocols auth "permission denied" message) and never applied. `revalidateAccess` re-checks connected users
 * against D1 when a document's access changes and drops those who lost it.
 *
 * One document everywhere: edits mark the room dirty and an alarm writes the materialized blocks back as a content
 * version at most every 2 s; `replaceBlocks` applies a PUT of content or a snapshot restore as one Yjs transaction.
 *
 * Presence is relayed, not interpreted: the room keeps each client's last awareness entry (also in the socket's
 * attachment, so it survives hibernation) without y-protocols' Awareness class, whose interval timer would keep an
 * idle room awake. Each connection owns the client ids it introduced (at most 4, each state at most 8 KB; see
 * `receiveAwareness`), so no one can forge or overwrite another's presence, and its entries leave with it.
 */
import { DurableObject } from "cloudflare:workers";
import * as Y from "yjs";
import * as encoding from "lib0/encoding";
import * as decoding from "lib0/decoding";
import * as syncProtocol from "y-protocols/sync";
import * as authProtocol from "y-protocols/auth";
import type { Env } from "../env";
import { createDb } from "../db/client";
import { ApiError, type ErrorCode } from "../errors";
import { FRAGMENT_NAME, isBlockArray, writeBlocks } from "../services/collab/blocks";
import { readBlocks } from "../services/collab/readBlocks";
import { readContentJson, writeContent } from "../services/content/store";
import { systemContext } from "../services/context";
import { documentsAccess } from "../auth/access";
import { emitDocumentUpdated } from "../services/collab/events";
import { sha256Hex } from "../lib/crypto";
import { base64UrlEncode } from "../lib/base64";

const MESSAGE_SYNC = 0;
const MESSAGE_AWARENESS = 1;
const MESSAGE_AUTH = 2;
const MESSAGE_QUERY_AWARENESS = 3;

/** docs/api-guide.md › Automations, published portals, collaborative editing: a document's encoded state may not pass 32 MiB. */
export const MAX_STATE_BYTES = 32 * 1024 * 1024;
/** Updates between compactions. */
export const COMPACT_EVERY = 2000;
/** Compacted state is stored in chunks well under the 2 MB per-value limit. */
const CHUNK_BYTES = 1024 * 1024;
/** At most one content write-back per this many milliseconds while edited. */
export const WRITE_BACK_MS = 2000;
/** How long received updates wait for more before they are stored and sent as one batch. */
const FLUSH_DELAY_MS = 2;
/** serializeAttachment holds at most 2 KiB; presence larger than this is kept in memory only. */
const MAX_ATTACHMENT_PRESENCE = 1500;

/** Presence bounds (docs/api-guide.md, "Collaborative editing"): client ids one connection may introduce, and bytes of one client's JSON state. */
export const MAX_AWARENESS_CLIENTS = 4;
export const MAX_AWARENESS_STATE_BYTES = 8 * 1024;

/** Close codes sent to clients. */
export const CLOSE = { unparseable: 1003, tooLarge: 1009, accessRevoked: 4403, reset: 4409 } as const;

/** What the Worker tells the room about an accepted connection. */
export interface CollabSession {
  documentId: string;
  userId: string;
  canEdit: boolean;
  /** "DOCX" for an EXTERNAL DOCX document (its room starts empty until seeded), else "DOCUMENT". */
  kind: "DOCUMENT" | "DOCX";
  /** E18's `seededAt` of a DOCX document (null: not seeded for the newest DOCX version). */
  seededAt: number | null;
  /** The newest DOCX blob of a DOCX document (`external.resourceId`): the room's state belongs to the blob it was seeded from. */
  docxResourceId?: string | null;
}

interface Attachment {
  userId: string;
  canEdit: boolean;
  /** Awareness entries of this socket's clients: clientID → [clock, JSON state] (state omitted when too large). */
  presence: Record<string, [number, string | null]>;
}

export type RoomResult<T> = { ok: true; value: T } | { ok: false; error: { code: ErrorCode; message: string } };

export interface RoomStats {
  documentId: string | null;
  /** Bytes in the room's storage: compacted state chunks plus updates since. */
  storedBytes: number;
  stateBytes: number;
  stateChunks: number;
  /** Updates stored since the last compaction. */
  updateCount: number;
  connections: number;
  dirty: boolean;
}

/** UTF-8 length of a string without encoding it. */
function utf8Length(s: string): number {
  let n = 0;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c < 0x80) n += 1;
    else if (c < 0x800) n += 2;
    else if (c >= 0xd800 && c <= 0xdbff) {
      n += 4;
      i++;
    } else n += 3;
  }
  return n;
}

const toBuffer = (u: Uint8Array): ArrayBuffer => u.buffer.slice(u.byteOffset, u.byteOffset + u.byteLength) as ArrayBuffer;

class Unparseable extends Error {}

export class DocumentRoom extends DurableObject<Env> {
  private doc = new Y.Doc();
  private readonly sql: SqlStorage;
  /** clientID → [clock, JSON state or null when removed] for every connected client's presence. */
  private presence = new Map<number, [number, string | null]>();
  private stateBytes = 0;
  private stateChunks = 0;
  private updateBytes = 0;
  private updateCount = 0;
  private initializing: Promise<void> | null = null;

  constructor(ctx: DurableObjectState, env: Env) {
    super(ctx, env);
    this.sql = ctx.storage.sql;
    this.sql.exec(`CREATE TABLE IF NOT EXISTS updates (seq INTEGER PRIMARY KEY AUTOINCREMENT, data BLOB NOT NULL, n INTEGER NOT NULL DEFAULT 1);
      CREATE TABLE IF NOT EXISTS state_chunks (idx INTEGER PRIMARY KEY, data BLOB NOT NULL);
      CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
      CREATE TABLE IF NOT EXISTS tickets (hash TEXT PRIMARY KEY, user_id TEXT NOT NULL, expires_at INTEGER NOT NULL);`);
    this.doc = this.load().doc;
    this.listen();
    for (const ws of this.ctx.getWebSockets()) {
      const att = ws.deserializeAttachment() as Attachment | null;
      for (const [id, entry] of Object.entries(att?.presence ?? {})) this.presence.set(Number(id), entry);
    }
  }

  // ───────────────────────────── storage ─────────────────────────────

  /** Reads the compacted state and every update after it into a fresh Y.Doc (also what the bench times). */
  private load(): { doc: Y.Doc; ms: number } {
    const started = performance.now();
    const doc = new Y.Doc({ gc: true });
    const chunks = this.sql.exec<{ data: ArrayBuffer }>("SELECT data FROM state_chunks ORDER BY idx").toArray();
    this.stateChunks = chunks.length;
    this.stateBytes = chunks.reduce((n, c) => n + c.data.byteLength, 0);
    const parts: Uint8Array[] = [];
    if (chunks.length) {
      const state = new Uint8Array(this.stateBytes);
      let at = 0;
      for (const c of chunks) {
        state.set(new Uint8Array(c.data), at);
        at += c.data.byteLength;
      }
      parts.push(state);
    }
    this.updateBytes = 0;
    this.updateCount = 0;
    for (const row of this.sql.exec<{ data: ArrayBuffer; n: number }>("SELECT data, n FROM updates ORDER BY seq")) {
      parts.push(new Uint8Array(row.data));
      this.updateBytes += row.data.byteLength;
      this.updateCount += row.n;
    }
    // One by one: Y.mergeUpdates over thousands of small updates is far slower than applying them.
    for (const part of parts) Y.applyUpdate(doc, part);
    return { doc, ms: performance.now() - started };
  }

  private listen() {
    this.doc.on("update", (update: Uint8Array, origin: unknown) => this.onUpdate(update, origin));
  }

  private meta(key: string): string | null {
    return this.sql.exec<{ value: string }>("SELECT value FROM meta WHERE key = ?", key).toArray()[0]?.value ?? null;
  }

  private setMeta(key: string, value: string | null) {
    if (value === null) this.sql.exec("DELETE FROM meta WHERE key = ?", key);
    else this.sql.exec("INSERT INTO meta (key, value) VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value", key, value);
  }

  /** The limits, read once per instance (tests lower them through `setLimits`). */
  private limits: { maxStateBytes: number; compactEvery: number } | null = null;

  private get limit() {
    this.limits ??= {
      maxStateBytes: Number(this.meta("maxStateBytes") ?? MAX_STATE_BYTES),
      compactEvery: Number(this.meta("compactEvery") ?? COMPACT_EVERY),
    };
    return this.limits;
  }

  /**
   * Updates received from sockets, not yet integrated. Each message's update is queued and the queue is flushed on
   * the next tick: messages that arrive while the previous flush's storage commit is in flight are integrated,
   * stored (one row, one commit) and broadcast together, so a busy room pays one commit per batch, not per keystroke.
   * Nothing of a queued update is visible to anyone before it is stored.
   */
  private inbox: { ws: WebSocket; update: Uint8Array }[] = [];
  private inboxBytes = 0;
  private flushTimer: ReturnType<typeof setTimeout> | null = null;
  /** Integrated updates of the flush in progress: origin socket and bytes. */
  private collecting: { origin: unknown; update: Uint8Array }[] | null = null;

  private enqueue(ws: WebSocket, update: Uint8Array) {
    this.inbox.push({ ws, update });
    this.inboxBytes += update.byteLength;
    this.flushTimer ??= setTimeout(() => this.flushInbox(), FLUSH_DELAY_MS);
  }

  /** Integrates the queued updates, stores what they changed as one row, then sends each to the other sockets. */
  private flushInbox() {
    if (this.flushTimer) clearTimeout(this.flushTimer);
    this.flushTimer = null;
    if (this.inbox.length === 0) return;
    const batch = this.inbox;
    this.inbox = [];
    this.inboxBytes = 0;
    const collected: { origin: unknown; update: Uint8Array }[] = [];
    /** Sockets whose update decoded but could not be applied: closed with 1003 once the batch is stored. */
    const broken = new Set<WebSocket>();
    this.collecting = collected;
    try {
      for (const { ws, update } of batch) {
        if (broken.has(ws)) continue;
        try {
          Y.applyUpdate(this.doc, update, ws);
        } catch (err) {
          // Whatever Yjs integrated before throwing came through onUpdate, so it is stored below like any edit.
          console.warn("collab: closing a socket whose update could not be applied", err instanceof Error ? err.message : err);
          broken.add(ws);
        }
      }
    } finally {
      this.collecting = null;
    }
    if (collected.length === 0) {
      for (const ws of broken) this.closeSocket(ws, CLOSE.unparseable, "Unparseable message");
      return;
    }
    const updates = collected.map((c) => c.update);
    const merged = updates.length === 1 ? updates[0]! : Y.mergeUpdates(updates);
    this.store(merged, updates.length);
    // One message per socket per batch. A socket that sent part of a mixed batch gets its own part back too,
    // which Yjs ignores; the only sender of a batch gets nothing.
    const message = encodeSync((e) => syncProtocol.writeUpdate(e, merged));
    const soleOrigin = collected.every((c) => c.origin === collected[0]!.origin) ? collected[0]!.origin : null;
    for (const ws of this.ctx.getWebSockets()) if (ws !== soleOrigin) this.send(ws, message);
    this.markDirty(collected[collected.length - 1]!.origin);
    for (const ws of broken) this.closeSocket(ws, CLOSE.unparseable, "Unparseable message");
    if (this.updateCount >= this.limit.compactEvery) this.compact();
  }

  private store(update: Uint8Array, n: number) {
    this.sql.exec("INSERT INTO updates (data, n) VALUES (?, ?)", toBuffer(update), n);
    this.updateBytes += update.byteLength;
    this.updateCount += n;
  }

  /**
   * Every integrated update: stored first, then sent to the other sockets. `origin` is the socket it came from, or a
   * string for the room's own transactions ("content": a content write that is already stored; "seed": the content
   * the room was opened with). During a flush of socket updates, the flush stores and sends them as one batch.
   */
  private onUpdate(update: Uint8Array, origin: unknown) {
    if (this.collecting) {
      this.collecting.push({ origin, update });
      return;
    }
    this.store(update, 1);
    const message = encodeSync((e) => syncProtocol.writeUpdate(e, update));
    for (const ws of this.ctx.getWebSockets()) {
      if (ws !== origin) this.send(ws, message);
    }
    if (origin !== "content" && origin !== "seed") this.markDirty(origin);
    if (this.updateCount >= this.limit.compactEvery) this.compact();
  }

  /** One merged state in place of the stored state and updates (a single SQLite transaction). */
  compact() {
    this.flushInbox();
    if (this.updateCount === 0) return;
    const state = Y.encodeStateAsUpdate(this.doc);
    this.ctx.storage.transactionSync(() => {
      this.sql.exec("DELETE FROM state_chunks");
      let idx = 0;
      for (let at = 0; at < state.byteLength; at += CHUNK_BYTES) {
        this.sql.exec("INSERT INTO state_chunks (idx, data) VALUES (?, ?)", idx++, toBuffer(state.subarray(at, at + CHUNK_BYTES)));
      }
      this.sql.exec("DELETE FROM updates");
      this.stateChunks = idx;
    });
    this.stateBytes = state.byteLength;
    this.updateBytes = 0;
    this.updateCount = 0;
  }

  /** Drops everything stored (a DOCX replaced since the room was seeded). */
  private reset() {
    this.ctx.storage.transactionSync(() => {
      this.sql.exec("DELETE FROM state_chunks");
      this.sql.exec("DELETE FROM updates");
      this.setMeta("seededAt", null);
      this.setMeta("dirty", null);
    });
    this.doc.destroy();
    this.doc = new Y.Doc();
    this.listen();
    this.stateBytes = this.stateChunks = this.updateBytes = this.updateCount = 0;
  }

  // ───────────────────────────── opening ─────────────────────────────

  /**
   * The first time a room opens it records its document and, for an ordinary document, starts from the current
   * content (so the editor shows what GET content shows). A DOCX document's room starts empty until a client seeds it
   * (E18); when the DOCX was replaced since (its `seededAt` cleared), the old seeded state is dropped. The room
   * records the DOCX blob it is opened for, so a replaced DOCX is noticed even when nobody opened the room between
   * mark-seeded and the new version (mark-seeded does not reach the room).
   */
  private async initialize(session: Pick<CollabSession, "documentId" | "userId" | "kind" | "seededAt" | "docxResourceId">) {
    while (this.initializing) await this.initializing;
    const known = this.meta("documentId");
    if (known && known !== session.documentId) throw new ApiError("InternalError", "Room opened for another document");
    if (session.kind === "DOCX") {
      const empty = this.ctx.getWebSockets().length === 0;
      const recorded = this.meta("seededAt");
      const blob = session.docxResourceId ?? null;
      const recordedBlob = this.meta("docxResourceId");
      const replaced = blob !== null && recordedBlob !== null && recordedBlob !== blob;
      if (session.seededAt === null && (recorded !== null || replaced) && empty) this.reset();
      if (session.seededAt !== null) this.setMeta("seededAt", String(session.seededAt));
      if (blob !== null && (empty || session.seededAt !== null || recordedBlob === null)) this.setMeta("docxResourceId", blob);
    }
    if (known) return;
    this.initializing = (async () => {
      const db = createDb(this.env.DB);
      if (session.kind === "DOCUMENT") {
        const { blocksJson } = await readContentJson(db, this.env.BLOBS, session.documentId);
        const blocks: unknown = JSON.parse(blocksJson);
        if (isBlockArray(blocks) && blocks.length > 0) this.doc.transact(() => writeBlocks(this.fragment, blocks), "seed");
      }
      // The Worker asks D1 which documents have a room before routing content writes and access changes here.
      await this.env.DB.prepare("INSERT INTO collab_rooms (document_id, live, updated_at) VALUES (?, 0, ?) ON CONFLICT (document_id) DO NOTHING")
        .bind(session.documentId, Date.now())
        .run();
      this.setMeta("lastEditor", session.userId);
      this.setMeta("documentId", session.documentId);
    })();
    try {
      await this.initializing;
    } finally {
      this.initializing = null;
    }
  }

  private get fragment() {
    return this.doc.getXmlFragment(FRAGMENT_NAME);
  }

  private get documentId() {
    return this.meta("documentId");
  }

  override async fetch(request: Request): Promise<Response> {
    if (request.headers.get("upgrade")?.toLowerCase() !== "websocket") return new Response("Expected a WebSocket upgrade", { status: 426 });
    const session = JSON.parse(request.headers.get("x-collab-session") ?? "null") as CollabSession | null;
    if (!session) return new Response("Missing session", { status: 400 });
    await this.initialize(session);
    const pair = new WebSocketPair();
    const [client, server] = [pair[0], pair[1]];
    const wasEmpty = this.ctx.getWebSockets().length === 0;
    this.ctx.acceptWebSocket(server, [session.userId]);
    server.serializeAttachment({ userId: session.userId, canEdit: session.canEdit, presence: {} } satisfies Attachment);
    // y-websocket's opening: the room's state vector (the client answers with what the room lacks) and presence.
    this.send(server, encodeSync((e) => syncProtocol.writeSyncStep1(e, this.doc)));
    if (this.presence.size) this.send(server, this.awarenessMessage([...this.presence.keys()]));
    if (wasEmpty) this.ctx.waitUntil(this.setLive(session.documentId, true));
    return new Response(null, { status: 101, webSocket: client });
  }

  private setLive(documentId: string, live: boolean) {
    return this.env.DB.prepare("UPDATE collab_rooms SET live = ?, updated_at = ? WHERE document_id = ?")
      .bind(live ? 1 : 0, Date.now(), documentId)
      .run()
      .catch(() => undefined);
  }

  // ───────────────────────────── messages ─────────────────────────────

  override async webSocketMessage(ws: WebSocket, message: ArrayBuffer | string) {
    try {
      if (typeof message === "string") throw new Unparseable("text frames are not part of the protocol");
      this.handle(ws, new Uint8Array(message));
    } catch (err) {
      // Whatever a message's bytes make the decoders throw (lib0 bounds, JSON, Yjs structure), only this socket
      // pays: it is closed with 1003 and nothing of the message was applied.
      console.warn("collab: closing a socket after an unparseable message", err instanceof Error ? err.message : err);
      this.closeSocket(ws, CLOSE.unparseable, "Unparseable message");
    }
  }

  private handle(ws: WebSocket, data: Uint8Array) {
    const decoder = decoding.createDecoder(data);
    const type = decoding.readVarUint(decoder);
    switch (type) {
      case MESSAGE_SYNC: {
        const sub = decoding.readVarUint(decoder);
        if (sub === syncProtocol.messageYjsSyncStep1) {
          const stateVector = decoding.readVarUint8Array(decoder);
          Y.decodeStateVector(stateVector);
          // Everything received so far is stored first, so the answer holds it (and nothing unstored).
          this.flushInbox();
          this.send(ws, encodeSync((e) => syncProtocol.writeSyncStep2(e, this.doc, stateVector)));
        } else if (sub === syncProtocol.messageYjsSyncStep2 || sub === syncProtocol.messageYjsUpdate) {
          this.receiveUpdate(ws, decoding.readVarUint8Array(decoder));
        } else {
          throw new Unparseable(`unknown sync message ${sub}`);
        }
        return;
      }
      case MESSAGE_AWARENESS:
        this.receiveAwareness(ws, decoding.readVarUint8Array(decoder));
        return;
      case MESSAGE_QUERY_AWARENESS:
        if (this.presence.size) this.send(ws, this.awarenessMessage([...this.presence.keys()]));
        return;
      case MESSAGE_AUTH:
        return;
      default:
        throw new Unparseable(`unknown message type ${type}`);
    }
  }

  private receiveUpdate(ws: WebSocket, update: Uint8Array) {
    let decoded: { structs: unknown[]; ds: { clients: Map<number, unknown> } };
    try {
      decoded = Y.decodeUpdate(update) as unknown as typeof decoded;
    } catch {
      throw new Unparseable("not a Yjs update");
    }
    // An empty update (a sync step 2 with nothing the room lacks) is no edit, also from a viewer.
    if (decoded.structs.length === 0 && decoded.ds.clients.size === 0) return;
    const att = ws.deserializeAttachment() as Attachment;
    if (!att.canEdit) {
      const e = encoding.createEncoder();
      encoding.writeVarUint(e, MESSAGE_AUTH);
      authProtocol.writePermissionDenied(e, "read-only: your role on this document does not allow editing; the update was not applied");
      this.send(ws, encoding.toUint8Array(e));
      return;
    }
    const limit = this.limit.maxStateBytes;
    // Stored bytes bound the encoded state from above; only near the limit is the exact size computed.
    if (this.stateBytes + this.updateBytes + this.inboxBytes + update.byteLength > limit) {
      this.flushInbox();
      const exact = Y.encodeStateAsUpdate(this.doc).byteLength;
      if (exact + update.byteLength > limit) {
        this.closeSocket(ws, CLOSE.tooLarge, `Refused: the document would exceed its ${Math.round(limit / 1024 / 1024)} MiB limit`);
        return;
      }
    }
    this.enqueue(ws, update);
  }

  /**
   * y-protocols' awareness update: count, then per client its id, clock and JSON state ("null" when it left).
   * The whole message is decoded and checked before any entry is applied, so a message refused part-way (closed
   * with 1003, or 1009 for a state past 8 KB) leaves nothing behind. Each connection owns the client ids it
   * introduced, at most 4: an entry for an id another connection owns, or for a fifth id, is dropped.
   */
  private receiveAwareness(ws: WebSocket, update: Uint8Array) {
    const d = decoding.createDecoder(update);
    const count = decoding.readVarUint(d);
    const entries: [clientId: number, clock: number, state: string | null][] = [];
    let oversized = false;
    for (let i = 0; i < count; i++) {
      const clientId = decoding.readVarUint(d);
      const clock = decoding.readVarUint(d);
      const json = decoding.readVarString(d);
      if (json.length > MAX_AWARENESS_STATE_BYTES || utf8Length(json) > MAX_AWARENESS_STATE_BYTES) oversized = true;
      else JSON.parse(json);
      entries.push([clientId, clock, json === "null" ? null : json]);
    }
    if (decoding.hasContent(d)) throw new Unparseable("trailing bytes in awareness update");
    if (oversized) {
      this.closeSocket(ws, CLOSE.tooLarge, `Refused: a presence state may not pass ${MAX_AWARENESS_STATE_BYTES} bytes`);
      return;
    }
    const att = ws.deserializeAttachment() as Attachment;
    const changed: number[] = [];
    for (const [clientId, clock, state] of entries) {
      const own = Object.hasOwn(att.presence, String(clientId));
      if (!own && (this.presence.has(clientId) || Object.keys(att.presence).length >= MAX_AWARENESS_CLIENTS)) continue;
      const current = this.presence.get(clientId);
      if (current && current[0] > clock) continue;
      this.presence.set(clientId, [clock, state]);
      att.presence[clientId] = [clock, state];
      if (!changed.includes(clientId)) changed.push(clientId);
    }
    this.keepPresence(ws, att);
    if (changed.length === 0) return;
    const message = this.awarenessMessage(changed);
    for (const other of this.ctx.getWebSockets()) if (other !== ws) this.send(other, message);
  }

  private keepPresence(ws: WebSocket, att: Attachment) {
    const json = JSON.stringify(att.presence);
    const stored = json.length <= MAX_ATTACHMENT_PRESENCE ? att : { ...att, presence: Object.fromEntries(Object.entries(att.presence).map(([k, [clock]]) => [k, [clock, null]])) };
    ws.serializeAttachment(stored);
  }

  private awarenessMessage(clientIds: number[]) {
    const e = encoding.createEncoder();
    encoding.writeVarUint(e, MESSAGE_AWARENESS);
    const inner = encoding.createEncoder();
    const known = clientIds.filter((id) => this.presence.has(id));
    encoding.writeVarUint(inner, known.length);
    for (const id of known) {
      const [clock, state] = this.presence.get(id)!;
      encoding.writeVarUint(inner, id);
      encoding.writeVarUint(inner, clock);
      encoding.writeVarString(inner, state ?? "null");
    }
    encoding.writeVarUint8Array(e, encoding.toUint8Array(inner));
    return encoding.toUint8Array(e);
  }

  private send(ws: WebSocket, message: Uint8Array) {
    try {
      ws.send(message);
    } catch {
      // A socket closing under us; its close handler cleans up.
    }
  }

  private closeSocket(ws: WebSocket, code: number, reason: string) {
    try {
      ws.close(code, reason);
    } catch {
      // Already closed.
    }
    this.left(ws);
  }

  override async webSocketClose(ws: WebSocket, code: number) {
    try {
      ws.close(code === 1005 || code === 1006 || code === 1015 ? 1000 : code, "closing");
    } catch {
      // Already closed.
    }
    this.left(ws);
  }

  override async webSocketError(ws: WebSocket) {
    this.left(ws);
  }

  /** A socket is gone: its presence is removed for the others; the last one out compacts the room. */
  private left(ws: WebSocket) {
    const att = ws.deserializeAttachment() as Attachment | null;
    if (att && Object.keys(att.presence).length) {
      const gone: number[] = [];
      for (const [id, [clock]] of Object.entries(att.presence)) {
        this.presence.set(Number(id), [clock + 1, null]);
        gone.push(Number(id));
      }
      ws.serializeAttachment({ ...att, presence: {} });
      const message = this.awarenessMessage(gone);
      for (const id of gone) this.presence.delete(id);
      for (const other of this.ctx.getWebSockets()) if (other !== ws) this.send(other, message);
    }
    const remaining = this.ctx.getWebSockets().filter((other) => other !== ws && other.readyState === WebSocket.OPEN);
    if (remaining.length === 0) {
      this.compact();
      const documentId = this.documentId;
      if (documentId) this.ctx.waitUntil(this.setLive(documentId, false));
    }
  }

  // ───────────────────────────── write-back ─────────────────────────────

  private lastEditor: string | null = null;

  private markDirty(origin: unknown) {
    if (origin instanceof WebSocket) {
      const att = origin.deserializeAttachment() as Attachment | null;
      if (att && att.userId !== this.lastEditor) {
        this.lastEditor = att.userId;
        this.setMeta("lastEditor", att.userId);
      }
    }
    if (this.meta("dirty") !== null) return;
    this.setMeta("dirty", "1");
    this.ctx.waitUntil(this.scheduleWriteBack());
  }

  private async scheduleWriteBack() {
    const at = Date.now() + WRITE_BACK_MS;
    const current = await this.ctx.storage.getAlarm();
    if (current === null || current > at) await this.ctx.storage.setAlarm(at);
  }

  /** The debounced write-back: the blocks as they are now become a new content version. */
  override async alarm() {
    await this.writeBack();
  }

  private async writeBack(): Promise<number | null> {
    this.flushInbox();
    if (this.meta("dirty") === null) return null;
    const documentId = this.documentId;
    const userId = this.meta("lastEditor");
    if (!documentId || !userId) return null;
    // Cleared before the awaits: an edit arriving meanwhile marks the room dirty again and schedules the next write.
    this.setMeta("dirty", null);
    const blocksJson = JSON.stringify(readBlocks(this.fragment));
    try {
      const { version } = await writeContent(systemContext(this.env, createDb(this.env.DB), null), { documentId, userId, blocksJson });
      await emitDocumentUpdated(this.env, documentId, { version, userId, source: "collab" });
      return version;
    } catch (err) {
      this.setMeta("dirty", "1");
      await this.scheduleWriteBack();
      throw err;
    }
  }

  // ───────────────────────────── RPC ─────────────────────────────

  /**
   * Replaces the blocks as one Yjs transaction that connected editors receive (PUT content, snapshot restore).
   * With `store`, the content write happens here first (after flushing pending live edits, so a stale `baseVersion`
   * is a 409 and nothing changes); without it the caller already stored the content. Blocks that are not BlockNote
   * JSON are stored as given and leave the shared document empty.
   */
  async replaceBlocks(input: { documentId: string; userId: string; blocksJson: string; baseVersion?: number; store: boolean }): Promise<RoomResult<{ version: number | null }>> {
    try {
      await this.initialize({ documentId: input.documentId, userId: input.userId, kind: "DOCUMENT", seededAt: null });
      let version: number | null = null;
      if (input.store) {
        await this.writeBack();
        ({ version } = await writeContent(systemContext(this.env, createDb(this.env.DB), null), {
          documentId: input.documentId,
          userId: input.userId,
          blocksJson: input.blocksJson,
          baseVersion: input.baseVersion,
        }));
      }
      const blocks: unknown = JSON.parse(input.blocksJson);
      this.flushInbox();
      this.doc.transact(() => writeBlocks(this.fragment, isBlockArray(blocks) ? blocks : []), "content");
      return { ok: true, value: { version } };
    } catch (err) {
      if (err instanceof ApiError) return { ok: false, error: { code: err.code, message: err.message } };
      throw err;
    }
  }

  /** Writes pending live edits back now (a snapshot taken next freezes them); the new version or null. */
  async flush(): Promise<number | null> {
    return this.writeBack();
  }

  /** The blocks of the shared document as BlockNote JSON. */
  async blocks() {
    this.flushInbox();
    return readBlocks(this.fragment);
  }

  /** The encoded Yjs state (tests compare replicas with it). */
  async encodedState(): Promise<Uint8Array> {
    this.flushInbox();
    return Y.encodeStateAsUpdate(this.doc);
  }

  /**
   * Re-checks connected users against the document's current access (all of them, or `userIds`): those who can no
   * longer read are disconnected (4403), the others keep or lose the right to edit. Returns how many were dropped.
   */
  async revalidateAccess(userIds?: string[]): Promise<{ disconnected: number }> {
    const documentId = this.documentId;
    if (!documentId) return { disconnected: 0 };
    const sockets = this.ctx.getWebSockets().filter((ws) => {
      const att = ws.deserializeAttachment() as Attachment | null;
      return att && (!userIds || userIds.includes(att.userId));
    });
    const users = [...new Set(sockets.map((ws) => (ws.deserializeAttachment() as Attachment).userId))];
    const db = createDb(this.env.DB);
    const verdicts = new Map<string, { read: boolean; edit: boolean }>();
    await Promise.all(
      users.map(async (userId) => {
        const access = (await documentsAccess(db, userId, [documentId])).get(documentId);
        const read = !!access && access.canRead && !access.doc.isDeleted;
        verdicts.set(userId, { read, edit: read && access!.canEdit });
      }),
    );
    let disconnected = 0;
    for (const ws of sockets) {
      const att = ws.deserializeAttachment() as Attachment;
      const verdict = verdicts.get(att.userId)!;
      if (!verdict.read) {
        disconnected++;
        this.closeSocket(ws, CLOSE.accessRevoked, "Access to this document was removed");
      } else if (verdict.edit !== att.canEdit) {
        ws.serializeAttachment({ ...att, canEdit: verdict.edit });
      }
    }
    return { disconnected };
  }

  /** A single-use connection ticket for `userId`, valid `ttlMs` (stored hashed; redeemed by `redeemTicket`). */
  async issueTicket(documentId: string, userId: string, ttlMs: number): Promise<{ ticket: string; expiresAt: number }> {
    void documentId;
    const ticket = base64UrlEncode(crypto.getRandomValues(new Uint8Array(32)));
    const expiresAt = Date.now() + ttlMs;
    const now = Date.now();
    this.sql.exec("DELETE FROM tickets WHERE expires_at <= ?", now);
    this.sql.exec("INSERT INTO tickets (hash, user_id, expires_at) VALUES (?, ?, ?)", await sha256Hex(ticket), userId, expiresAt);
    return { ticket, expiresAt };
  }

  /**
   * The user a ticket was issued to, or null (unknown, expired or already used). The lookup and the delete are one
   * synchronous statement, so of two concurrent redemptions exactly one gets the user.
   */
  async redeemTicket(ticket: string): Promise<string | null> {
    const hash = await sha256Hex(ticket);
    const row = this.sql.exec<{ user_id: string; expires_at: number }>("DELETE FROM tickets WHERE hash = ? RETURNING user_id, expires_at", hash).toArray()[0];
    if (!row || row.expires_at <= Date.now()) return null;
    return row.user_id;
  }

  /** Whether a ticket would be accepted now, without using it up (a plain GET must not burn it). */
  async ticketValid(ticket: string): Promise<boolean> {
    const row = this.sql.exec<{ expires_at: number }>("SELECT expires_at FROM tickets WHERE hash = ?", await sha256Hex(ticket)).toArray()[0];
    return !!row && row.expires_at > Date.now();
  }

  async stats(): Promise<RoomStats> {
    this.flushInbox();
    return {
      documentId: this.documentId,
      storedBytes: this.stateBytes + this.updateBytes,
      stateBytes: this.stateBytes,
      stateChunks: this.stateChunks,
      updateCount: this.updateCount,
      connections: this.ctx.getWebSockets().length,
      dirty: this.meta("dirty") !== null,
    };
  }

  /** Compacts now and returns the stats after. */
  async forceCompaction(): Promise<RoomStats> {
    this.compact();
    return this.stats();
  }

  /**
   * Loads the stored state into a fresh document, as a restarted room does, and whether it equals the live one. Time
   * it from the caller: a Durable Object's clock does not advance while it computes.
   */
  async measureReload(): Promise<{ ms: number; matches: boolean }> {
    this.flushInbox();
    const { doc, ms } = this.load();
    const matches = Y.encodeStateVector(doc).toString() === Y.encodeStateVector(this.doc).toString();
    doc.destroy();
    return { ms, matches };
  }

  /** Lowers the state cap or the compaction interval (tests; null restores docs/api-guide.md's 32 MiB and 2 000 updates). */
  async setLimits(limits: { maxStateBytes?: number | null; compactEvery?: number | null }) {
    if (limits.maxStateBytes !== undefined) this.setMeta("maxStateBytes", limits.maxStateBytes === null ? null : String(limits.maxStateBytes));
    if (limits.compactEvery !== undefined) this.setMeta("compactEvery", limits.compactEvery === null ? null : String(limits.compactEvery));
    this.limits = null;
  }
}

function encodeSync(write: (e: encoding.Encoder) => void) {
  const e = encoding.createEncoder();
  encoding.writeVarUint(e, MESSAGE_SYNC);
  write(e);
  return encoding.toUint8Array(e);
}
