import { accessTokens } from "../../db/schema";
import type { Db } from "../../env";
import { randomBase62, sha256Hex } from "../../lib/crypto";
import { newId, now } from "../../lib/ids";

export const TOKEN_PREFIX = "cws_";

export interface IssuedToken {
  _id: string;
  name: string;
  token: string;
  createdAt: number;
  expiresAt: number | null;
}

/** A new secret and the statement that stores only its hash (so callers can batch it with other writes). */
export async function prepareToken(db: Db, userId: string, name: string, expiresAt: number | null) {
  const token = TOKEN_PREFIX + randomBase62(40);
  const record: IssuedToken = { _id: newId(), name, token, createdAt: now(), expiresAt };
  const insert = db.insert(accessTokens).values({
    id: record._id,
    userId,
    name,
    tokenHash: await sha256Hex(token),
    createdAt: record.createdAt,
    expiresAt,
  });
  return { record, insert };
}

export function tokenDto(row: typeof accessTokens.$inferSelect) {
  return { _id: row.id, name: row.name, createdAt: row.createdAt, expiresAt: row.expiresAt, lastUsedAt: row.lastUsedAt };
}
