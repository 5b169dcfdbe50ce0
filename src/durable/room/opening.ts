/**
 * Opening a room: the first time, it records its document and, for an ordinary document, starts from the current
 * content (so the editor shows what GET content shows). A DOCX document's room starts empty until a client seeds it
 * (E18); when the DOCX was replaced since (its `seededAt` cleared), the old seeded state is dropped. The room records
 * the DOCX blob it is opened for, so a replaced DOCX is noticed even when nobody opened the room between mark-seeded
 * and the new version (mark-seeded does not reach the room). D1's `collab_rooms` row tells the Worker which documents
 * have a room (content writes and access changes are then routed here) and whether sockets are connected.
 */
import type { Env } from "../../env";
import { ApiError } from "../../errors";
import { isBlockArray, writeBlocks } from "../../services/collab/blocks";
import { readContentJson } from "../../services/content/store";
import { systemContext, d1Holding } from "../../services/context";
import type { RoomStorage } from "./persistence";

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

export type OpeningSession = Pick<CollabSession, "documentId" | "userId" | "kind" | "seededAt" | "docxResourceId">;

export class RoomOpener {
  private initializing: Promise<void> | null = null;

  constructor(
    private readonly env: Env,
    private readonly store: RoomStorage,
    private readonly connections: () => number,
  ) {}

  /** The document the room belongs to (null before its first opening). */
  get documentId() {
    return this.store.meta("documentId");
  }

  /** Makes the room ready for `session` (waiting for an opening already under way). */
  async open(session: OpeningSession) {
    while (this.initializing) await this.initializing;
    const known = this.documentId;
    if (known && known !== session.documentId) throw new ApiError("InternalError", "Room opened for another document");
    if (session.kind === "DOCX") this.reconcileDocx(session);
    if (known) return;
    this.initializing = this.first(session);
    try {
      await this.initializing;
    } finally {
      this.initializing = null;
    }
  }

  /** Drops a DOCX room's state seeded from a DOCX that has been replaced since (only while nobody is connected). */
  private reconcileDocx(session: OpeningSession) {
    const empty = this.connections() === 0;
    const recorded = this.store.meta("seededAt");
    const blob = session.docxResourceId ?? null;
    const recordedBlob = this.store.meta("docxResourceId");
    const replaced = blob !== null && recordedBlob !== null && recordedBlob !== blob;
    if (session.seededAt === null && (recorded !== null || replaced) && empty) this.store.reset();
    if (session.seededAt !== null) this.store.setMeta("seededAt", String(session.seededAt));
    if (blob !== null && (empty || session.seededAt !== null || recordedBlob === null))
      this.store.setMeta("docxResourceId", blob);
  }

  private async first(session: OpeningSession) {
    if (session.kind === "DOCUMENT") {
      const { blocksJson } = await readContentJson(systemContext(this.env, session.documentId), session.documentId);
      const blocks: unknown = JSON.parse(blocksJson);
      if (isBlockArray(blocks) && blocks.length > 0)
        this.store.doc.transact(() => writeBlocks(this.store.fragment, blocks), "seed");
    }
    await d1Holding(this.env, session.documentId)
      .prepare(
        "INSERT INTO collab_rooms (document_id, live, updated_at) VALUES (?, 0, ?) ON CONFLICT (document_id) DO NOTHING",
      )
      .bind(session.documentId, Date.now())
      .run();
    this.store.setMeta("lastEditor", session.userId);
    this.store.setMeta("documentId", session.documentId);
  }

  /** Records in D1 whether sockets are connected (a failure only costs a needless re-check later). */
  setLive(documentId: string, live: boolean) {
    return d1Holding(this.env, documentId)
      .prepare("UPDATE collab_rooms SET live = ?, updated_at = ? WHERE document_id = ?")
      .bind(live ? 1 : 0, Date.now(), documentId)
      .run()
      .catch(() => undefined);
  }
}
