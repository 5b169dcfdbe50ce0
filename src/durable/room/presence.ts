/**
 * Presence is relayed, not interpreted: the room keeps each client's last awareness entry (also in the socket's
 * attachment, so it survives hibernation) without y-protocols' Awareness class, whose interval timer would keep an
 * idle room awake. Each connection owns the client ids it introduced (at most MAX_AWARENESS_CLIENTS), so no one can
 * forge or overwrite another's presence, and its entries leave with it.
 */
import { awarenessMessage, MAX_AWARENESS_CLIENTS, type AwarenessEntry } from "./protocol";
import { attachmentOf, type Attachment } from "./sockets";

/** serializeAttachment holds at most 2 KiB; presence larger than this is kept in memory only. */
const MAX_ATTACHMENT_PRESENCE = 1500;

export class Presence {
  /** clientID → [clock, JSON state or null when removed] for every connected client's presence. */
  private entries = new Map<number, [number, string | null]>();

  /** After a wake from hibernation: the entries the sockets' attachments kept. */
  restore(sockets: readonly WebSocket[]) {
    for (const ws of sockets) {
      for (const [id, entry] of Object.entries(attachmentOf(ws)?.presence ?? {})) this.entries.set(Number(id), entry);
    }
  }

  /** Everyone's presence as one message (for a socket that joins or asks), or null when there is none. */
  everyone(): Uint8Array | null {
    return this.entries.size ? this.message([...this.entries.keys()]) : null;
  }

  /**
   * Applies a decoded awareness update from `ws`: an entry for an id another connection owns, or for an id past
   * the connection's MAX_AWARENESS_CLIENTS, is dropped, and so is an entry older than the one kept. Returns the
   * message for the other sockets, or null when nothing changed.
   */
  receive(ws: WebSocket, entries: readonly AwarenessEntry[]): Uint8Array | null {
    const att = attachmentOf(ws)!;
    const changed: number[] = [];
    for (const [clientId, clock, state] of entries) {
      const own = Object.hasOwn(att.presence, String(clientId));
      if (!own && (this.entries.has(clientId) || Object.keys(att.presence).length >= MAX_AWARENESS_CLIENTS)) continue;
      const current = this.entries.get(clientId);
      if (current && current[0] > clock) continue;
      this.entries.set(clientId, [clock, state]);
      att.presence[clientId] = [clock, state];
      if (!changed.includes(clientId)) changed.push(clientId);
    }
    keep(ws, att);
    return changed.length ? this.message(changed) : null;
  }

  /** `ws` is leaving: its clients' entries are removed; the message telling the others, or null when it had none. */
  leave(ws: WebSocket): Uint8Array | null {
    const att = attachmentOf(ws);
    if (!att || Object.keys(att.presence).length === 0) return null;
    const gone: number[] = [];
    for (const [id, [clock]] of Object.entries(att.presence)) {
      this.entries.set(Number(id), [clock + 1, null]);
      gone.push(Number(id));
    }
    ws.serializeAttachment({ ...att, presence: {} });
    const message = this.message(gone);
    for (const id of gone) this.entries.delete(id);
    return message;
  }

  private message(clientIds: number[]) {
    const known = clientIds.filter((id) => this.entries.has(id));
    return awarenessMessage(known.map((id) => [id, ...this.entries.get(id)!]));
  }
}

/** Stores the attachment, dropping the states (not the clocks) when they would not fit. */
function keep(ws: WebSocket, att: Attachment) {
  const json = JSON.stringify(att.presence);
  const stored =
    json.length <= MAX_ATTACHMENT_PRESENCE
      ? att
      : {
          ...att,
          presence: Object.fromEntries(Object.entries(att.presence).map(([k, [clock]]) => [k, [clock, null]])),
        };
  ws.serializeAttachment(stored);
}
