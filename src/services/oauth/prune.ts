/**
 * Upkeep of the OAuth tables (docs/api-guide.md › OAuth apps), one of the Worker's per-minute repairs: a code is
 * kept a day past its five-minute life (so a replay in that day still revokes what its redemption issued), a
 * refresh token until it expires (rotated or not: until then, presenting a rotated one revokes its grant), and the
 * access token issued with an expired refresh token goes with it once it has expired too. PRUNE_ROWS per statement,
 * found through the tables' `expires_at` indexes, so a tick's work is bounded whatever has piled up.
 */
import type { Env } from "../../env";
import { statement } from "../../db/d1";

const PRUNE_ROWS = 500;
const DAY_MS = 86_400_000;

const EXPIRED_REFRESH = `SELECT token_hash FROM oauth_refresh_tokens WHERE expires_at <= ?1 LIMIT ?2`;

/** Codes a day past their expiry, then expired refresh tokens with their expired access tokens. Rows deleted. */
export async function pruneOAuthGrants(env: Env, now: number): Promise<number> {
  const d1 = env.DB;
  const results = await d1.batch([
    statement(
      d1,
      `DELETE FROM oauth_codes WHERE code_hash IN (SELECT code_hash FROM oauth_codes WHERE expires_at <= ?1 LIMIT ?2)`,
      now - DAY_MS,
      PRUNE_ROWS,
    ),
    statement(
      d1,
      `DELETE FROM access_tokens WHERE expires_at <= ?1 AND id IN (
         SELECT access_token_id FROM oauth_refresh_tokens WHERE token_hash IN (${EXPIRED_REFRESH}))`,
      now,
      PRUNE_ROWS,
    ),
    statement(d1, `DELETE FROM oauth_refresh_tokens WHERE token_hash IN (${EXPIRED_REFRESH})`, now, PRUNE_ROWS),
  ]);
  return results.reduce((n, r) => n + (r.meta.changes ?? 0), 0);
}
