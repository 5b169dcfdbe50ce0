/**
 * The room's Yjs document and its SQLite storage. Every update the room integrates is appended as a row before any
 * socket is sent a byte of it (the output gate holds those sends until the write is durable), so whatever a client
 * could have seen survives an eviction. Compaction replaces the rows by one encoded state stored in chunks under the
 * 2 MB value limit. On wake the state and the updates after it are loaded again: exactly what was persisted.
 * Small facts (the document id, dirty, last editor, DOCX seeding, lowered limits) live in the `meta` table.
 */
import * as Y from "yjs";
import { FRAGMENT_NAME } from "../../services/collab/blocks";

/** docs/api-guide.md › Automations, published portals, collaborative editing: a document's encoded state may not pass 32 MiB. */
export const MAX_STATE_BYTES = 32 * 1024 * 1024;
/** Updates between compactions. */
export const COMPACT_EVERY = 2000;
/** Compacted state is stored in chunks well under the 2 MB per-value limit. */
const CHUNK_BYTES = 1024 * 1024;

const toBuffer = (u: Uint8Array): ArrayBuffer => u.buffer.slice(u.byteOffset, u.byteOffset + u.byteLength) as ArrayBuffer;

/** What the storage holds, in bytes and rows. */
interface Sizes {
  stateBytes: number;
  stateChunks: number;
  updateBytes: number;
  /** Updates stored since the last compaction (a stored row may hold a batch of several). */
  updateCount: number;
}

export type UpdateListener = (update: Uint8Array, origin: unknown) => void;

export class RoomStorage {
  doc: Y.Doc;
  sizes: Sizes;
  private readonly sql: SqlStorage;
  /** The limits, read once per instance (tests lower them through the diagnostics surface). */
  private limits: { maxStateBytes: number; compactEvery: number } | null = null;

  constructor(
    private readonly storage: DurableObjectStorage,
    private readonly onUpdate: UpdateListener,
  ) {
    this.sql = storage.sql;
    this.sql.exec(`CREATE TABLE IF NOT EXISTS updates (seq INTEGER PRIMARY KEY AUTOINCREMENT, data BLOB NOT NULL, n INTEGER NOT NULL DEFAULT 1);
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
    const sizes: Sizes = { stateChunks: chunks.length, stateBytes: chunks.reduce((n, c) => n + c.data.byteLength, 0), updateBytes: 0, updateCount: 0 };
    const parts: Uint8Array[] = [];
    if (chunks.length) {
      const state = new Uint8Array(sizes.stateBytes);
      let at = 0;
      for (const c of chunks) {
        state.set(new Uint8Array(c.data), at);
        at += c.data.byteLength;
      }
      parts.push(state);
    }
    for (const row of this.sql.exec<{ data: ArrayBuffer; n: number }>("SELECT data, n FROM updates ORDER BY seq")) {
      parts.push(new Uint8Array(row.data));
      sizes.updateBytes += row.data.byteLength;
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
    else this.sql.exec("INSERT INTO meta (key, value) VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value", key, value);
  }

  get limit() {
    this.limits ??= {
      maxStateBytes: Number(this.meta("maxStateBytes") ?? MAX_STATE_BYTES),
      compactEvery: Number(this.meta("compactEvery") ?? COMPACT_EVERY),
    };
    return this.limits;
  }

  /** Lowers the state cap or the compaction interval (null restores docs/api-guide.md's 32 MiB and 2 000 updates). */
  setLimits(limits: { maxStateBytes?: number | null; compactEvery?: number | null }) {
    if (limits.maxStateBytes !== undefined) this.setMeta("maxStateBytes", limits.maxStateBytes === null ? null : String(limits.maxStateBytes));
    if (limits.compactEvery !== undefined) this.setMeta("compactEvery", limits.compactEvery === null ? null : String(limits.compactEvery));
    this.limits = null;
  }

  /** Stores one integrated update (`n` updates merged into one row). */
  append(update: Uint8Array, n: number) {
    this.sql.exec("INSERT INTO updates (data, n) VALUES (?, ?)", toBuffer(update), n);
    this.sizes.updateBytes += update.byteLength;
    this.sizes.updateCount += n;
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
      let idx = 0;
      for (let at = 0; at < state.byteLength; at += CHUNK_BYTES) {
        this.sql.exec("INSERT INTO state_chunks (idx, data) VALUES (?, ?)", idx++, toBuffer(state.subarray(at, at + CHUNK_BYTES)));
      }
      this.sql.exec("DELETE FROM updates");
      this.sizes.stateChunks = idx;
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
      this.setMeta("seededAt", null);
      this.setMeta("dirty", null);
    });
    this.doc.destroy();
    this.doc = new Y.Doc();
    this.listen();
    this.sizes = { stateBytes: 0, stateChunks: 0, updateBytes: 0, updateCount: 0 };
  }
}
