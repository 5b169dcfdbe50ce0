/**
 * The room's hibernatable sockets: what each one's attachment holds (it survives hibernation) and sending or closing
 * without throwing at a socket that is going away (its close handler cleans up).
 */

/** Kept in each socket's attachment: who is connected, whether they may edit, and their presence. */
export interface Attachment {
  userId: string;
  canEdit: boolean;
  /** Awareness entries of this socket's clients: clientID → [clock, JSON state] (state omitted when too large). */
  presence: Record<string, [number, string | null]>;
}

export const attachmentOf = (ws: WebSocket) => ws.deserializeAttachment() as Attachment | null;

export function send(ws: WebSocket, message: Uint8Array) {
  try {
    ws.send(message);
  } catch {
    // A socket closing under us; its close handler cleans up.
  }
}

/** Sends `message` to every socket but `except`. */
export function broadcast(sockets: readonly WebSocket[], message: Uint8Array, except?: unknown) {
  for (const ws of sockets) if (ws !== except) send(ws, message);
}

export function closeQuietly(ws: WebSocket, code: number, reason: string) {
  try {
    ws.close(code, reason);
  } catch {
    // Already closed.
  }
}
