/**
 * What one room admits (docs/api-guide.md › Automations, published portals, collaborative editing): sockets per
 * room and per user, and each socket's message rate.
 */

/** Sockets one room accepts at once (lowerable per room through the diagnostics surface). */
export const MAX_ROOM_SOCKETS = 50;
/** Sockets one user may hold open in one room (tabs, devices). */
export const MAX_USER_SOCKETS = 10;
/** Messages a socket may send per second, sustained… */
export const MESSAGES_PER_SECOND = 50;
/** …and at once after a quiet spell (a token bucket of this size, refilled at MESSAGES_PER_SECOND). */
export const MESSAGE_BURST = 200;

/**
 * Each socket's message budget: a token bucket of MESSAGE_BURST tokens refilled at MESSAGES_PER_SECOND, one token a
 * message. Kept in memory: a room wakes from hibernation only after its sockets were quiet, when every bucket would
 * be full again anyway.
 */
export class MessageRate {
  private readonly buckets = new WeakMap<WebSocket, { tokens: number; at: number }>();

  /** Spends one token of `ws`'s bucket; false when it has none (the socket is past its rate). */
  take(ws: WebSocket): boolean {
    const now = Date.now();
    const bucket = this.buckets.get(ws) ?? { tokens: MESSAGE_BURST, at: now };
    bucket.tokens = Math.min(MESSAGE_BURST, bucket.tokens + ((now - bucket.at) / 1000) * MESSAGES_PER_SECOND);
    bucket.at = now;
    this.buckets.set(ws, bucket);
    if (bucket.tokens < 1) return false;
    bucket.tokens -= 1;
    return true;
  }
}

/** Why one more socket for `userId` is refused (the close reason), or null when the room has room for it. */
export function socketRefusal(
  sockets: readonly WebSocket[],
  userId: string,
  maxRoomSockets: number,
  userOf: (ws: WebSocket) => string | undefined,
): string | null {
  const open = sockets.filter((ws) => ws.readyState === WebSocket.OPEN);
  if (open.length >= maxRoomSockets) return `Room full: at most ${maxRoomSockets} sockets per document`;
  if (open.filter((ws) => userOf(ws) === userId).length >= MAX_USER_SOCKETS)
    return `Too many sockets: at most ${MAX_USER_SOCKETS} sockets per user in one document`;
  return null;
}
