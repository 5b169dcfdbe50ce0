/**
 * `document.updated` for automations (API.md §14/§18). The collaborative room calls this after each content
 * write-back, so it fires at most once per 2 s per document while the document is being edited (the room's alarm is
 * the debounce). It is a no-op hook until the automations area has a `document.updated` event: then the body becomes
 * `emitEvents(env, [{ event: "document.updated", projectId, documentId, documentIds: [parentId] }])` from
 * src/services/automations/events.ts (the project and parent come from one read of the document), keeping the
 * signature, so the room needs no change.
 */
import type { Env } from "../../env";

export interface DocumentUpdatedEvent {
  /** The content version the edits were written back as. */
  version: number;
  /** The user whose edit was last written back (automations run with their owner's rights, not this user's). */
  userId: string;
  /** What wrote the content: the collaborative room's write-back. */
  source: "collab";
}

export async function emitDocumentUpdated(env: Env, documentId: string, event: DocumentUpdatedEvent): Promise<void> {
  void env;
  void documentId;
  void event;
}
