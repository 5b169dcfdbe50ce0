/**
 * `document.updated` for automations (docs/api-guide.md › Automations, published portals, collaborative editing) from the collaborative room: it calls this after each content
 * write-back, so the event fires at most once per 2 s per document while the document is being edited (the room's
 * alarm is the debounce). One uncounted read finds the document's project and parent; never throws.
 */
import type { Env } from "../../env";
import { documentUpdatedEvent, emitEvents } from "../events/events";
import { d1Holding } from "../context";
import { liveDocumentStatement } from "./queries";

export interface DocumentUpdatedEvent {
  /** The content version the edits were written back as. */
  version: number;
  /** The user whose edit was last written back (automations run with their owner's rights, not this user's). */
  userId: string;
  /** What wrote the content: the collaborative room's write-back. */
  source: "collab";
}

export async function emitDocumentUpdated(env: Env, documentId: string, _event: DocumentUpdatedEvent): Promise<void> {
  try {
    const doc = await liveDocumentStatement(d1Holding(env, documentId), documentId).first<{
      id: string;
      projectId: string;
      parentId: string | null;
    }>();
    if (doc) await emitEvents(env, [documentUpdatedEvent(doc)]);
  } catch (err) {
    console.error(JSON.stringify({ level: "error", msg: "document.updated emission failed", error: String(err) }));
  }
}
