/**
 * The room's Yjs document and its SQLite storage. A socket's update is stored before the document applies it and
 * before any socket is sent a byte of it (the output gate holds sends until the write is durable), so whatever a
 * client could have seen survives an eviction, and an update that cannot be stored is never applied. Every value is
 * written in chunks under MAX_VALUE_BYTES (a deployed Durable Object stores at most 2 MB a value): an update is one
 * `updates` row holding its first chunk plus `update_parts` rows for the rest; compaction replaces them by one
 * encoded state in `state_chunks`. On wake the state and the updates after it are loaded again: exactly what was
 * persisted. Small facts (the document id, dirty, last editor, DOCX seeding, lowered limits) live in `meta`.
 */
import * as Y from "yjs";
import { FRAGMENT_NAME } from "../../services/collab/blocks";
import { MAX_ROOM_SOCKETS } from "./limits";

/** docs/api-guide.md › Automations, published portals, collaborative editing: a document's encoded state may not pass 32 MiB. */
export const MAX_STATE_BYTES = 32 * 1024 * 1024;
/** Updates between compactions. */
export const COMPACT_EVERY = 2000;
/** The most a deployed Durable Object stores in one value (2 MB); every value the room writes stays under it. */
export const MAX_VALUE_BYTES = 2_000_000;
/** Updates and compacted state are stored in chunks of this size, well under MAX_VALUE_BYTES. */
const CHUNK_BYTES = 1024 * 1024;

const toBuffer = (u: Uint8Array): ArrayBuffer =>
  u.buffer.slice(u.byteOffset, u.byteOffset + u.byteLength) as ArrayBuffer;

/** `bytes` as values of at most CHUNK_BYTES (one empty value for no bytes). */
function chunksOf(bytes: Uint8Array): ArrayBuffer[] {
  const chunks: ArrayBuffer[] = [];
  for (let at = 0; at < bytes.byteLength || chunks.length === 0; at += CHUNK_BYTES)
    chunks.push(toBuffer(bytes.subarray(at, at + CHUNK_BYTES)));
  return chunks;
}

function concat(buffers: ArrayBuffer[]): Uint8Array {
  if (buffers.length === 1) return new Uint8Array(buffers[0]!);
  const out = new Uint8Array(buffers.reduce((n, b) => n + b.byteLength, 0));
  let at = 0;
  for (const b of buffers) {
    out.set(new Uint8Array(b), at);
    at += b.byteLength;
  }
  return out;
}

/** What the storage holds, in bytes and rows. */
interface Sizes {
  stateBytes: number;
  stateChunks: number;
  updateBytes: number;
  /** Updates stored since the last compaction (a stored row may hold a batch of several). */
  updateCount: number;
}

/** Limits a room can be given other than the defaults (null: back to the default). */
export interface RoomLimits {
  maxStateBytes?: number | null;
  compactEvery?: number | null;
  maxSockets?: number | null;
}

export type UpdateListener = (update: Uint8Array, origin: unknown) => void;

export class RoomStorage {
  doc: Y.Doc;
  sizes: Sizes;
  private readonly sql: SqlStorage;
  /** The limits, read once per instance (tests lower them through the diagnostics surface). */
  private limits: { maxStateBytes: number; compactEvery: number; maxSockets: number } | null = null;

  constructor(
    private readonly storage: DurableObjectStorage,
    private readonly onUpdate: UpdateListener,
  ) {
    this.sql = storage.sql;
    this.sql
      .exec(`CREATE TABLE IF NOT EXISTS updates (seq INTEGER PRIMARY KEY AUTOINCREMENT, data BLOB NOT NULL, n INTEGER NOT NULL DEFAULT 1);
      CREATE TABLE IF NOT EXISTS update_parts (seq INTEGER NOT NULL, idx INTEGER NOT NULL, data BLOB NOT NULL, PRIMARY KEY (seq, idx));
      CREATE TABLE IF NOT EXISTS state_chunks (idx INTEGER PRIMARY KEY, data BLOB NOT NULL);
      CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);`);
    ({ doc: this.doc, sizes: this.sizes } = this.load());
    this.listen();
  }

  /** Reads the compacted state and every update after it into a fresh Y.Doc (also what the reload diagnostic times). */
  load(): { doc: Y.Doc; sizes: Sizes; ms: number } {
    const started = performance.now();
    const doc = new Y.Doc({ gc: true });
    const chunks = this.sql.exec<{ data: ArrayBuffer }>("SELECT data FROM state_chunks ORDER BY idx").toArray();
    const sizes: Sizes = {
      stateChunks: chunks.length,
      stateBytes: chunks.reduce((n, c) => n + c.data.byteLength, 0),
      updateBytes: 0,
      updateCount: 0,
    };
    const parts: Uint8Array[] = [];
    if (sizes.stateBytes > 0) parts.push(concat(chunks.map((c) => c.data)));
    // The chunks after the first of each update stored in several (rare: updates over CHUNK_BYTES).
    const rest = new Map<number, ArrayBuffer[]>();
    for (const part of this.sql.exec<{ seq: number; data: ArrayBuffer }>(
      "SELECT seq, data FROM update_parts ORDER BY seq, idx",
    )) {
      const list = rest.get(part.seq) ?? [];
      list.push(part.data);
      rest.set(part.seq, list);
    }
    for (const row of this.sql.exec<{ seq: number; data: ArrayBuffer; n: number }>(
      "SELECT seq, data, n FROM updates ORDER BY seq",
    )) {
      const update = concat([row.data, ...(rest.get(row.seq) ?? [])]);
      parts.push(update);
      sizes.updateBytes += update.byteLength;
      sizes.updateCount += row.n;
    }
    // One by one: Y.mergeUpdates over thousands of small updates is far slower than applying them.
    for (const part of parts) Y.applyUpdate(doc, part);
    return { doc, sizes, ms: performance.now() - started };
  }

  private listen() {
    this.doc.on("update", (update: Uint8Array, origin: unknown) => this.onUpdate(update, origin));
  }

  get fragment() {
    return this.doc.getXmlFragment(FRAGMENT_NAME);
  }

  /** Bytes in storage: compacted state chunks plus updates since. */
  get storedBytes() {
    return this.sizes.stateBytes + this.sizes.updateBytes;
  }

  meta(key: string): string | null {
    return this.sql.exec<{ value: string }>("SELECT value FROM meta WHERE key = ?", key).toArray()[0]?.value ?? null;
  }

  setMeta(key: string, value: string | null) {
    if (value === null) this.sql.exec("DELETE FROM meta WHERE key = ?", key);
    else
      this.sql.exec(
        "INSERT INTO meta (key, value) VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value",
        key,
        value,
      );
  }

  get limit() {
    this.limits ??= {
      maxStateBytes: Number(this.meta("maxStateBytes") ?? MAX_STATE_BYTES),
      compactEvery: Number(this.meta("compactEvery") ?? COMPACT_EVERY),
      maxSockets: Number(this.meta("maxSockets") ?? MAX_ROOM_SOCKETS),
    };
    return this.limits;
  }

  /** Lowers the state cap, the compaction interval or the socket cap (null restores docs/api-guide.md's 32 MiB, 2 000 updates, 50 sockets). */
  setLimits(limits: RoomLimits) {
    for (const key of ["maxStateBytes", "compactEvery", "maxSockets"] as const) {
      const value = limits[key];
      if (value !== undefined) this.setMeta(key, value === null ? null : String(value));
    }
    this.limits = null;
  }

  /**
   * Stores one update (`n` updates merged) in chunks, all or nothing: a storage error throws and leaves no row.
   * Returns its sequence number.
   */
  append(update: Uint8Array, n: number): number {
    const seq = this.storage.transactionSync(() => this.write(update, n));
    this.sizes.updateBytes += update.byteLength;
    this.sizes.updateCount += n;
    return seq;
  }

  /**
   * Stored update `seq` becomes `update` (what the document really integrated of it, when applying it failed
   * part-way), so the storage keeps holding exactly what the document holds.
   */
  replace(seq: number, stored: number, update: Uint8Array | null) {
    this.storage.transactionSync(() => {
      this.sql.exec("DELETE FROM updates WHERE seq = ?", seq);
      this.sql.exec("DELETE FROM update_parts WHERE seq = ?", seq);
      if (update) this.write(update, 1);
    });
    this.sizes.updateBytes += (update?.byteLength ?? 0) - stored;
    if (!update) this.sizes.updateCount -= 1;
  }

  private write(update: Uint8Array, n: number): number {
    const chunks = chunksOf(update);
    const { seq } = this.sql
      .exec<{ seq: number }>("INSERT INTO updates (data, n) VALUES (?, ?) RETURNING seq", chunks[0]!, n)
      .one();
    for (let idx = 1; idx < chunks.length; idx++)
      this.sql.exec("INSERT INTO update_parts (seq, idx, data) VALUES (?, ?, ?)", seq, idx, chunks[idx]!);
    return seq;
  }

  get compactionDue() {
    return this.sizes.updateCount >= this.limit.compactEvery;
  }

  /** One merged state in place of the stored state and updates (a single SQLite transaction). */
  compact() {
    if (this.sizes.updateCount === 0) return;
    const state = Y.encodeStateAsUpdate(this.doc);
    this.storage.transactionSync(() => {
      this.sql.exec("DELETE FROM state_chunks");
      const chunks = chunksOf(state);
      chunks.forEach((chunk, idx) => this.sql.exec("INSERT INTO state_chunks (idx, data) VALUES (?, ?)", idx, chunk));
      this.sql.exec("DELETE FROM updates");
      this.sql.exec("DELETE FROM update_parts");
      this.sizes.stateChunks = chunks.length;
    });
    this.sizes.stateBytes = state.byteLength;
    this.sizes.updateBytes = 0;
    this.sizes.updateCount = 0;
  }

  /** Drops everything stored and starts a new empty document (a DOCX replaced since the room was seeded). */
  reset() {
    this.storage.transactionSync(() => {
      this.sql.exec("DELETE FROM state_chunks");
      this.sql.exec("DELETE FROM updates");
      this.sql.exec("DELETE FROM update_parts");
      this.setMeta("seededAt", null);
      this.setMeta("dirty", null);
    });
    this.doc.destroy();
    this.doc = new Y.Doc();
    this.listen();
    this.sizes = { stateBytes: 0, stateChunks: 0, updateBytes: 0, updateCount: 0 };
  }
}
