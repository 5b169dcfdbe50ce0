/**
 * Who may stay connected, and how they got in. The Worker authenticates and authorizes the upgrade (with a bearer
 * token or a single-use ticket the room issued) and passes the caller to the room; each socket's attachment keeps
 * the user and whether they may edit. When a document's access changes, `recheckAccess` asks D1 again.
 */
import type { Env } from "../../env";
import { createDb } from "../../db/client";
import { documentsAccess } from "../../auth/access";
import { sha256Hex } from "../../lib/crypto";
import { base64UrlEncode } from "../../lib/base64";
import { attachmentOf } from "./sockets";
import { d1Holding } from "../../services/context";

/**
 * Re-checks the users of `sockets` (all of them, or only `userIds`) against the document's current access: a socket
 * whose user can no longer read is handed to `revoke`, the others keep or lose the right to edit. Returns how many
 * sockets were revoked.
 */
export async function recheckAccess(
  env: Env,
  documentId: string,
  sockets: readonly WebSocket[],
  userIds: string[] | undefined,
  revoke: (ws: WebSocket) => void,
) {
  const affected = sockets.filter((ws) => {
    const att = attachmentOf(ws);
    return att && (!userIds || userIds.includes(att.userId));
  });
  const users = [...new Set(affected.map((ws) => attachmentOf(ws)!.userId))];
  const db = createDb(d1Holding(env, documentId));
  const verdicts = new Map<string, { read: boolean; edit: boolean }>();
  await Promise.all(
    users.map(async (userId) => {
      const access = (await documentsAccess(db, userId, [documentId])).get(documentId);
      const read = !!access && access.canRead && !access.doc.isDeleted;
      verdicts.set(userId, { read, edit: read && access!.canEdit });
    }),
  );
  let revoked = 0;
  for (const ws of affected) {
    const att = attachmentOf(ws)!;
    const verdict = verdicts.get(att.userId)!;
    if (!verdict.read) {
      revoked++;
      revoke(ws);
    } else if (verdict.edit !== att.canEdit) {
      ws.serializeAttachment({ ...att, canEdit: verdict.edit });
    }
  }
  return revoked;
}

/** Single-use connection tickets, stored hashed in the room's SQLite storage. */
export class Tickets {
  constructor(private readonly sql: SqlStorage) {
    sql.exec(
      "CREATE TABLE IF NOT EXISTS tickets (hash TEXT PRIMARY KEY, user_id TEXT NOT NULL, expires_at INTEGER NOT NULL)",
    );
  }

  /** A ticket for `userId`, valid `ttlMs`; expired tickets are dropped on the way. */
  async issue(userId: string, ttlMs: number): Promise<{ ticket: string; expiresAt: number }> {
    const ticket = base64UrlEncode(crypto.getRandomValues(new Uint8Array(32)));
    const expiresAt = Date.now() + ttlMs;
    const now = Date.now();
    this.sql.exec("DELETE FROM tickets WHERE expires_at <= ?", now);
    this.sql.exec(
      "INSERT INTO tickets (hash, user_id, expires_at) VALUES (?, ?, ?)",
      await sha256Hex(ticket),
      userId,
      expiresAt,
    );
    return { ticket, expiresAt };
  }

  /**
   * The user a ticket was issued to, or null (unknown, expired or already used). The lookup and the delete are one
   * synchronous statement, so of two concurrent redemptions exactly one gets the user.
   */
  async redeem(ticket: string): Promise<string | null> {
    const hash = await sha256Hex(ticket);
    const row = this.sql
      .exec<{ user_id: string; expires_at: number }>(
        "DELETE FROM tickets WHERE hash = ? RETURNING user_id, expires_at",
        hash,
      )
      .toArray()[0];
    if (!row || row.expires_at <= Date.now()) return null;
    return row.user_id;
  }

  /** Whether a ticket would be accepted now, without using it up (a plain GET must not burn it). */
  async valid(ticket: string): Promise<boolean> {
    const row = this.sql
      .exec<{ expires_at: number }>("SELECT expires_at FROM tickets WHERE hash = ?", await sha256Hex(ticket))
      .toArray()[0];
    return !!row && row.expires_at > Date.now();
  }
}
