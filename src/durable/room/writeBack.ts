/**
 * One document everywhere: edits mark the room dirty and an alarm writes the materialized blocks back to D1 as a
 * content version at most every WRITE_BACK_MS, attributed to the last editor; a content write arriving through the
 * room (PUT content) goes through `storeContent` after the pending edits are written back.
 */
import type { Env } from "../../env";
import { createDb } from "../../db/client";
import { writeContent } from "../../services/content/store";
import type { EntryBy } from "../../services/changes/recordLog";
import { systemContext, learnFromFence } from "../../services/context";
import { emitDocumentUpdated } from "../../services/collab/events";
import { readBlocks } from "../../services/collab/readBlocks";
import type { RoomStorage } from "./persistence";
import { attachmentOf } from "./sockets";

/** At most one content write-back per this many milliseconds while edited. */
export const WRITE_BACK_MS = 2000;

/** Stores content as a new version (a stale `baseVersion` is a 409 ApiError); its version. */
export function storeContent(
  env: Env,
  input: { documentId: string; userId: string; blocksJson: string; baseVersion?: number; by?: EntryBy },
) {
  return writeContent(systemContext(env, input.documentId), input);
}

export class WriteBack {
  /** The user the next write-back is attributed to (mirrors meta `lastEditor`, to skip a write per edit). */
  private lastEditor: string | null = null;

  constructor(
    private readonly ctx: DurableObjectState,
    private readonly env: Env,
    private readonly store: RoomStorage,
    /** Integrates updates still queued, so a write-back holds everything received. */
    private readonly flushPending: () => void,
  ) {}

  get dirty() {
    return this.store.meta("dirty") !== null;
  }

  /** An edit was stored: `origin` (a socket) becomes the last editor, and a write-back is scheduled. */
  markDirty(origin: unknown) {
    if (origin instanceof WebSocket) {
      const att = attachmentOf(origin);
      if (att && att.userId !== this.lastEditor) {
        this.lastEditor = att.userId;
        this.store.setMeta("lastEditor", att.userId);
      }
    }
    if (this.dirty) return;
    this.store.setMeta("dirty", "1");
    this.ctx.waitUntil(this.schedule());
  }

  private async schedule() {
    const at = Date.now() + WRITE_BACK_MS;
    const current = await this.ctx.storage.getAlarm();
    if (current === null || current > at) await this.ctx.storage.setAlarm(at);
  }

  /** The blocks as they are now become a new content version (null: nothing to write). A failure is retried later. */
  async run(): Promise<number | null> {
    this.flushPending();
    if (!this.dirty) return null;
    const documentId = this.store.meta("documentId");
    const userId = this.store.meta("lastEditor");
    if (!documentId || !userId) return null;
    // Cleared before the awaits: an edit arriving meanwhile marks the room dirty again and schedules the next write.
    this.store.setMeta("dirty", null);
    const blocksJson = JSON.stringify(readBlocks(this.store.fragment));
    try {
      // The change log names the editor it is attributed to, with source `room`.
      const by: EntryBy = { actor: { type: "user", userId }, source: "room" };
      const { version } = await storeContent(this.env, { documentId, userId, blocksJson, by });
      await emitDocumentUpdated(this.env, documentId, { version, userId, source: "collab" });
      return version;
    } catch (err) {
      this.store.setMeta("dirty", "1");
      // Its document's shard moving: the next alarm writes again, to where the shard went once it has moved.
      await learnFromFence(createDb(this.env.DB), err);
      await this.schedule();
      throw err;
    }
  }
}
