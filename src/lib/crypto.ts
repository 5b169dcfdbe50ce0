import { base64UrlDecode, base64UrlEncode } from "./base64";

const encoder = new TextEncoder();

/** SHA-256 in hex of a text (its UTF-8 bytes) or of bytes. */
export async function sha256Hex(input: string | ArrayBuffer): Promise<string> {
  const digest = await crypto.subtle.digest("SHA-256", typeof input === "string" ? encoder.encode(input) : input);
  return toHex(new Uint8Array(digest));
}

const HEX_BYTES = Array.from({ length: 256 }, (_, b) => b.toString(16).padStart(2, "0"));

/** Lower-case hex; a table lookup per byte (every request hashes its token and most hash an ETag). */
export function toHex(bytes: Uint8Array): string {
  let out = "";
  for (let i = 0; i < bytes.length; i++) out += HEX_BYTES[bytes[i]!];
  return out;
}

const BASE62 = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";

/** Uniform random base62 string (rejection sampling, no modulo bias). */
export function randomBase62(length: number): string {
  let out = "";
  while (out.length < length) {
    const buf = crypto.getRandomValues(new Uint8Array(length * 2));
    for (const b of buf) {
      if (b < 248 && out.length < length) out += BASE62[b % 62];
    }
  }
  return out;
}

/** Constant-time comparison of two strings (by their SHA-256, so lengths do not leak either). */
export async function timingSafeEqualStrings(a: string, b: string): Promise<boolean> {
  const [ha, hb] = await Promise.all([
    crypto.subtle.digest("SHA-256", encoder.encode(a)),
    crypto.subtle.digest("SHA-256", encoder.encode(b)),
  ]);
  return crypto.subtle.timingSafeEqual(ha, hb);
}

export async function hmacSha256(secret: string, message: string): Promise<Uint8Array> {
  const key = await crypto.subtle.importKey("raw", encoder.encode(secret), { name: "HMAC", hash: "SHA-256" }, false, [
    "sign",
  ]);
  return new Uint8Array(await crypto.subtle.sign("HMAC", key, encoder.encode(message)));
}

/**
 * Secrets the service must be able to read back (a webhook's signing secret, shown to its owner and used to sign)
 * are kept sealed at rest: AES-256-GCM under a key derived (HKDF-SHA-256) from the deployment's SIGNING_SECRET,
 * bound to the record they belong to (`context`, the additional data), so a copied column is neither readable nor
 * movable to another record. Stored as `sealed:v1:<iv>.<ciphertext>` (base64url).
 */
const SEALED_PREFIX = "sealed:v1:";
const sealingKeys = new Map<string, Promise<CryptoKey>>();

function sealingKey(secret: string): Promise<CryptoKey> {
  let key = sealingKeys.get(secret);
  if (!key) {
    key = crypto.subtle.importKey("raw", encoder.encode(secret), "HKDF", false, ["deriveKey"]).then((base) =>
      crypto.subtle.deriveKey(
        {
          name: "HKDF",
          hash: "SHA-256",
          salt: new Uint8Array(0),
          info: encoder.encode("workspace-edge sealed secrets v1"),
        },
        base,
        { name: "AES-GCM", length: 256 },
        false,
        ["encrypt", "decrypt"],
      ),
    );
    sealingKeys.set(secret, key);
  }
  return key;
}

/** Seals `plaintext` for the record `context`; without a SIGNING_SECRET the value is kept as given. */
export async function sealSecret(secret: string | undefined, plaintext: string, context: string): Promise<string> {
  if (!secret) return plaintext;
  const iv = crypto.getRandomValues(new Uint8Array(12));
  const sealed = await crypto.subtle.encrypt(
    { name: "AES-GCM", iv, additionalData: encoder.encode(context) },
    await sealingKey(secret),
    encoder.encode(plaintext),
  );
  return `${SEALED_PREFIX}${base64UrlEncode(iv)}.${base64UrlEncode(new Uint8Array(sealed))}`;
}

/** The plaintext of a stored value from sealSecret (a value stored before sealing existed is returned as is). */
export async function openSecret(secret: string | undefined, stored: string, context: string): Promise<string> {
  if (!stored.startsWith(SEALED_PREFIX)) return stored;
  if (!secret) throw new Error("A sealed secret cannot be opened: SIGNING_SECRET is not configured");
  const [ivText, dataText] = stored.slice(SEALED_PREFIX.length).split(".");
  const iv = base64UrlDecode(ivText ?? "");
  const data = base64UrlDecode(dataText ?? "");
  if (!iv || !data) throw new Error("A sealed secret is not base64url");
  const plain = await crypto.subtle.decrypt(
    { name: "AES-GCM", iv, additionalData: encoder.encode(context) },
    await sealingKey(secret),
    data,
  );
  return new TextDecoder().decode(plain);
}
