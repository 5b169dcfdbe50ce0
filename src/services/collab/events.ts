/**
 * `document.updated` for automations (API.md §14/§18). The collaborative room calls this after each content
 * write-back, so it fires at most once per 2 s per document while the document is being edited (the room's alarm is
 * the debounce). It is a no-op hook until the automations area wires its event dispatch here: the integrator replaces
 * the body with that dispatch (e.g. enqueue matching automations for `document.updated`), keeping the signature.
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
