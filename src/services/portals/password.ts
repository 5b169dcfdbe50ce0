/**
 * Portal passwords (docs/api-guide.md › Automations, published portals, collaborative editing): PBKDF2-HMAC-SHA-256 through Web Crypto with a random 16-byte salt.
 * 100 000 iterations is the most the Workers runtime allows for PBKDF2. Stored as
 * `pbkdf2-sha256$<iterations>$<salt base64url>$<hash base64url>`, so the iteration count can rise later.
 */
import { base64UrlDecode, base64UrlEncode } from "../../lib/base64";

const ITERATIONS = 100_000;
const encoder = new TextEncoder();

async function derive(password: string, salt: Uint8Array, iterations: number): Promise<Uint8Array> {
  const key = await crypto.subtle.importKey("raw", encoder.encode(password), "PBKDF2", false, ["deriveBits"]);
  const bits = await crypto.subtle.deriveBits({ name: "PBKDF2", hash: "SHA-256", salt, iterations }, key, 256);
  return new Uint8Array(bits);
}

export async function hashPassword(password: string): Promise<string> {
  const salt = crypto.getRandomValues(new Uint8Array(16));
  const hash = await derive(password, salt, ITERATIONS);
  return `pbkdf2-sha256$${ITERATIONS}$${base64UrlEncode(salt)}$${base64UrlEncode(hash)}`;
}

export async function verifyPassword(password: string, stored: string): Promise<boolean> {
  const [scheme, iter, saltText, hashText] = stored.split("$");
  const iterations = Number(iter);
  if (scheme !== "pbkdf2-sha256" || !Number.isInteger(iterations) || iterations < 1 || !saltText || !hashText)
    return false;
  const expected = base64UrlDecode(hashText);
  const salt = base64UrlDecode(saltText);
  if (!expected || !salt) return false;
  const actual = await derive(password, salt, iterations);
  return expected.byteLength === actual.byteLength && crypto.subtle.timingSafeEqual(expected, actual);
}
