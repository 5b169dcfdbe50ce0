/**
 * The room's wire format: y-websocket messages (sync, awareness, auth, query-awareness) in y-protocols' encoding.
 * Encoding and decoding only; what the room does with a message is in DocumentRoom.ts. Whatever bytes a client
 * sends, decoding either succeeds or throws (Unparseable or lib0's bounds errors), and the room closes that socket.
 */
import * as Y from "yjs";
import * as encoding from "lib0/encoding";
import * as decoding from "lib0/decoding";
import * as syncProtocol from "y-protocols/sync";
import * as authProtocol from "y-protocols/auth";

const MESSAGE_SYNC = 0;
const MESSAGE_AWARENESS = 1;
const MESSAGE_AUTH = 2;
const MESSAGE_QUERY_AWARENESS = 3;
/**
 * The room's own message, server to client only (docs/api-guide.md › Comments): `comments` (100) then a JSON string
 * `{ type: "comments", change, threadId, commentId }`. y-websocket providers ignore message types they do not know.
 */
export const MESSAGE_COMMENTS = 100;

/** Presence bounds (docs/api-guide.md, "Collaborative editing"): client ids one connection may introduce, and bytes of one client's JSON state. */
export const MAX_AWARENESS_CLIENTS = 4;
export const MAX_AWARENESS_STATE_BYTES = 8 * 1024;

/** Close codes sent to clients (docs/api-guide.md, "Collaborative editing"). */
export const CLOSE = {
  unparseable: 1003,
  tooLarge: 1009,
  accessRevoked: 4403,
  reset: 4409,
  tooDeep: 4422,
  rateLimited: 4429,
  full: 4503,
} as const;

/** A message that is not part of the protocol: its socket is closed with 1003 and nothing of it is applied. */
export class Unparseable extends Error {}

/** One client's presence: id, clock, JSON state (null when it left). */
export type AwarenessEntry = [clientId: number, clock: number, state: string | null];

/** What the room does with each kind of message (`dispatch` decodes, these act). */
export interface MessageHandlers {
  /** A sync step 1: the client's state vector, already checked to decode. */
  syncStep1(stateVector: Uint8Array): void;
  /** A sync step 2 or an update: Yjs update bytes, not yet decoded. */
  update(update: Uint8Array): void;
  /** An awareness update, not yet decoded (`decodeAwareness`). */
  awareness(update: Uint8Array): void;
  queryAwareness(): void;
}

/** Decodes one binary message and calls its handler; throws on anything outside the protocol. */
export function dispatch(data: Uint8Array, on: MessageHandlers) {
  const decoder = decoding.createDecoder(data);
  const type = decoding.readVarUint(decoder);
  switch (type) {
    case MESSAGE_SYNC: {
      const sub = decoding.readVarUint(decoder);
      if (sub === syncProtocol.messageYjsSyncStep1) {
        const stateVector = decoding.readVarUint8Array(decoder);
        Y.decodeStateVector(stateVector);
        on.syncStep1(stateVector);
      } else if (sub === syncProtocol.messageYjsSyncStep2 || sub === syncProtocol.messageYjsUpdate) {
        on.update(decoding.readVarUint8Array(decoder));
      } else {
        throw new Unparseable(`unknown sync message ${sub}`);
      }
      return;
    }
    case MESSAGE_AWARENESS:
      on.awareness(decoding.readVarUint8Array(decoder));
      return;
    case MESSAGE_QUERY_AWARENESS:
      on.queryAwareness();
      return;
    case MESSAGE_AUTH:
      return;
    default:
      throw new Unparseable(`unknown message type ${type}`);
  }
}

/** Whether a Yjs update changes anything (an empty sync step 2 does not); throws Unparseable when it is not one. */
export function isEmptyUpdate(update: Uint8Array): boolean {
  let decoded: { structs: unknown[]; ds: { clients: Map<number, unknown> } };
  try {
    decoded = Y.decodeUpdate(update) as unknown as typeof decoded;
  } catch {
    throw new Unparseable("not a Yjs update");
  }
  return decoded.structs.length === 0 && decoded.ds.clients.size === 0;
}

function encodeSync(write: (e: encoding.Encoder) => void) {
  const e = encoding.createEncoder();
  encoding.writeVarUint(e, MESSAGE_SYNC);
  write(e);
  return encoding.toUint8Array(e);
}

/** y-websocket's opening: the room's state vector (the client answers with what the room lacks). */
export const syncStep1Message = (doc: Y.Doc) => encodeSync((e) => syncProtocol.writeSyncStep1(e, doc));
/** What `doc` holds beyond `stateVector`. */
export const syncStep2Message = (doc: Y.Doc, stateVector: Uint8Array) =>
  encodeSync((e) => syncProtocol.writeSyncStep2(e, doc, stateVector));
/** A thread of the document changed: clients re-read it (GET /comment/{threadId} or the listing). */
export function commentsMessage(change: { change: string; threadId: string; commentId: string }): Uint8Array {
  const e = encoding.createEncoder();
  encoding.writeVarUint(e, MESSAGE_COMMENTS);
  encoding.writeVarString(e, JSON.stringify({ type: "comments", ...change }));
  return encoding.toUint8Array(e);
}

export const updateMessage = (update: Uint8Array) => encodeSync((e) => syncProtocol.writeUpdate(e, update));

/** y-protocols auth "permission denied": sent to a viewer whose update was not applied. */
export function permissionDeniedMessage(reason: string) {
  const e = encoding.createEncoder();
  encoding.writeVarUint(e, MESSAGE_AUTH);
  authProtocol.writePermissionDenied(e, reason);
  return encoding.toUint8Array(e);
}

/** An awareness message carrying `entries`. */
export function awarenessMessage(entries: readonly AwarenessEntry[]) {
  const e = encoding.createEncoder();
  encoding.writeVarUint(e, MESSAGE_AWARENESS);
  const inner = encoding.createEncoder();
  encoding.writeVarUint(inner, entries.length);
  for (const [id, clock, state] of entries) {
    encoding.writeVarUint(inner, id);
    encoding.writeVarUint(inner, clock);
    encoding.writeVarString(inner, state ?? "null");
  }
  encoding.writeVarUint8Array(e, encoding.toUint8Array(inner));
  return encoding.toUint8Array(e);
}

/**
 * y-protocols' awareness update: count, then per client its id, clock and JSON state ("null" when it left). The
 * whole update is decoded and checked before anything is applied: a malformed one throws; `oversized` says a state
 * passes MAX_AWARENESS_STATE_BYTES (the room then closes the socket with 1009).
 */
export function decodeAwareness(update: Uint8Array): { entries: AwarenessEntry[]; oversized: boolean } {
  const d = decoding.createDecoder(update);
  const count = decoding.readVarUint(d);
  const entries: AwarenessEntry[] = [];
  let oversized = false;
  for (let i = 0; i < count; i++) {
    const clientId = decoding.readVarUint(d);
    const clock = decoding.readVarUint(d);
    const json = decoding.readVarString(d);
    if (json.length > MAX_AWARENESS_STATE_BYTES || utf8Length(json) > MAX_AWARENESS_STATE_BYTES) oversized = true;
    else JSON.parse(json);
    entries.push([clientId, clock, json === "null" ? null : json]);
  }
  if (decoding.hasContent(d)) throw new Unparseable("trailing bytes in awareness update");
  return { entries, oversized };
}

/** UTF-8 length of a string without encoding it. */
function utf8Length(s: string): number {
  let n = 0;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c < 0x80) n += 1;
    else if (c < 0x800) n += 2;
    else if (c >= 0xd800 && c <= 0xdbff) {
      n += 4;
      i++;
    } else n += 3;
  }
  return n;
}
