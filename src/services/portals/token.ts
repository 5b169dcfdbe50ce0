/**
 * The portal reader token (docs/api-guide.md › Automations, published portals, collaborative editing): what `POST /published/{id}/login` returns for the `user-published-token`
 * header and what `POST /site/{slug}/login` puts in the portal cookie. `<slug>.<expiresAt>.<HMAC>` signed with
 * SIGNING_SECRET over the slug, the expiry and the entry's current password hash, so changing or removing the
 * password invalidates every token issued under the old one.
 */
import { hmacSha256, timingSafeEqualStrings } from "../../lib/crypto";
import { base64UrlEncode } from "../../lib/base64";

export const PORTAL_TOKEN_TTL_MS = 24 * 60 * 60 * 1000;

const message = (slug: string, expiresAt: number, passwordHash: string) =>
  `portal:${slug}:${expiresAt}:${passwordHash}`;

export async function signPortalToken(
  secret: string,
  slug: string,
  passwordHash: string,
  now: number,
): Promise<{ token: string; expiresAt: number }> {
  const expiresAt = now + PORTAL_TOKEN_TTL_MS;
  const sig = base64UrlEncode(await hmacSha256(secret, message(slug, expiresAt, passwordHash)));
  return { token: `${slug}.${expiresAt}.${sig}`, expiresAt };
}

/** The slug a well-formed token names (not yet verified), so the caller can find the entry to verify it against. */
export function portalTokenSlug(token: string): string | null {
  const parts = token.split(".");
  return parts.length === 3 && parts[0] ? parts[0] : null;
}

export async function verifyPortalToken(
  secret: string,
  token: string,
  slug: string,
  passwordHash: string,
  now: number,
): Promise<boolean> {
  if (token.length > 512) return false;
  const [tSlug, exp, sig] = token.split(".");
  const expiresAt = Number(exp);
  if (tSlug !== slug || !sig || !/^\d{1,16}$/.test(exp ?? "") || expiresAt <= now) return false;
  const expected = base64UrlEncode(await hmacSha256(secret, message(slug, expiresAt, passwordHash)));
  return timingSafeEqualStrings(expected, sig);
}
