/**
 * Base64 through the runtime's native `Uint8Array.fromBase64` / `toBase64` (TC39, in workerd): linear, no regular
 * expression and no intermediate binary string, so a 64 MiB E6 body decodes in one pass (a backtracking regex over
 * the whole input overflowed the stack past about 4 MB).
 */
type FromBase64 = (
  text: string,
  options?: { alphabet?: "base64" | "base64url"; lastChunkHandling?: "loose" | "strict" },
) => Uint8Array;
type ToBase64 = (this: Uint8Array, options?: { alphabet?: "base64" | "base64url"; omitPadding?: boolean }) => string;

const native = Uint8Array as unknown as { fromBase64?: FromBase64; prototype: { toBase64?: ToBase64 } };

/** Standard base64 with its padding; ASCII whitespace is skipped. Null for anything else. */
export function decodeBase64(text: string): Uint8Array | null {
  if (!native.fromBase64) throw new Error("this runtime has no Uint8Array.fromBase64");
  try {
    return native.fromBase64(text, { alphabet: "base64", lastChunkHandling: "strict" });
  } catch (err) {
    if (err instanceof SyntaxError) return null;
    throw err;
  }
}

export function encodeBase64(bytes: Uint8Array): string {
  return toBase64().call(bytes);
}

/** base64url without padding (RFC 4648 §5), as tokens, cursors and signatures carry it. */
export function base64UrlEncode(bytes: Uint8Array): string {
  return toBase64().call(bytes, { alphabet: "base64url", omitPadding: true });
}

/** base64url with or without its padding; ASCII whitespace is skipped. Null for anything else. */
export function base64UrlDecode(text: string): Uint8Array | null {
  if (!native.fromBase64) throw new Error("this runtime has no Uint8Array.fromBase64");
  try {
    return native.fromBase64(text, { alphabet: "base64url", lastChunkHandling: "loose" });
  } catch (err) {
    if (err instanceof SyntaxError) return null;
    throw err;
  }
}

const encoder = new TextEncoder();
const decoder = new TextDecoder();

/** A text as base64url of its UTF-8 (opaque page cursors). */
export function textToBase64Url(text: string): string {
  return base64UrlEncode(encoder.encode(text));
}

/** The text of `textToBase64Url`; null when `encoded` is not base64url. */
export function textFromBase64Url(encoded: string): string | null {
  const bytes = base64UrlDecode(encoded);
  return bytes === null ? null : decoder.decode(bytes);
}

function toBase64(): ToBase64 {
  const fn = native.prototype.toBase64;
  if (!fn) throw new Error("this runtime has no Uint8Array.prototype.toBase64");
  return fn;
}
