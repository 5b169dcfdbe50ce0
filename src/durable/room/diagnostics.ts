/**
 * The room's one inspection surface, for operators (POST /admin/collab/{documentId}), the collab benchmark and the
 * tests: what the room stores, lowering its limits, compacting now, timing a reload from storage and reading the
 * shared document's blocks. Nothing else in the room exists for tests.
 */
import * as Y from "yjs";
import { readBlocks } from "../../services/collab/readBlocks";
import type { RoomLimits, RoomStorage } from "./persistence";

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

/** What to do before the stats are read, in this order. */
export interface DiagnosticsRequest {
  /** Lower the state cap, the compaction interval or the socket cap (tests; null restores docs/api-guide.md's defaults). */
  limits?: RoomLimits;
  /** Compact the stored updates into one state now. */
  compact?: boolean;
  /**
   * Load the stored state into a fresh document, as a restarted room does, and say whether it equals the live one.
   * Time it from the caller: a Durable Object's clock does not advance while it computes.
   */
  reload?: boolean;
  /** Read the shared document's blocks as BlockNote JSON (text, so the answer's RPC type stays serializable). */
  blocks?: boolean;
}

export interface Diagnostics {
  stats: RoomStats;
  reload?: { ms: number; matches: boolean };
  blocksJson?: string;
}

/** The parts of the room the diagnostics reach. */
export interface Inspected {
  store: RoomStorage;
  /** Integrates queued updates first, so every answer holds everything received. */
  flushPending(): void;
  compact(): void;
  documentId(): string | null;
  connections(): number;
  dirty(): boolean;
}

export function diagnose(room: Inspected, request: DiagnosticsRequest): Diagnostics {
  const { store } = room;
  if (request.limits) store.setLimits(request.limits);
  if (request.compact) room.compact();
  room.flushPending();
  const result: Diagnostics = {
    stats: {
      documentId: room.documentId(),
      storedBytes: store.storedBytes,
      stateBytes: store.sizes.stateBytes,
      stateChunks: store.sizes.stateChunks,
      updateCount: store.sizes.updateCount,
      connections: room.connections(),
      dirty: room.dirty(),
    },
  };
  if (request.reload) {
    const { doc, ms } = store.load();
    result.reload = { ms, matches: Y.encodeStateVector(doc).toString() === Y.encodeStateVector(store.doc).toString() };
    doc.destroy();
  }
  if (request.blocks) result.blocksJson = JSON.stringify(readBlocks(store.fragment));
  return result;
}
