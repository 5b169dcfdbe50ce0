/** URL rules of the reader site (docs/api-guide.md › Automations, published portals, collaborative editing): only http, https and mailto links are ever emitted. */

const LINK_PROTOCOLS = new Set(["http:", "https:", "mailto:"]);
const IMAGE_PROTOCOLS = new Set(["http:", "https:"]);

function parse(raw: unknown): URL | null {
  if (typeof raw !== "string" || raw.length === 0 || raw.length > 4096) return null;
  try {
    // The URL parser drops tabs/newlines and lower-cases the scheme, so "java\tscript:" is seen for what it is;
    // the normalized href (never the raw text) is what gets emitted.
    return new URL(raw.trim());
  } catch {
    return null;
  }
}

/** The normalized link target, or null when the scheme is not http, https or mailto (or it is not absolute). */
export function safeHref(raw: unknown): string | null {
  const url = parse(raw);
  return url && LINK_PROTOCOLS.has(url.protocol) ? url.href : null;
}

export function safeImageSrc(raw: unknown): string | null {
  const url = parse(raw);
  return url && IMAGE_PROTOCOLS.has(url.protocol) ? url.href : null;
}

/** An emoji's `unified` code ("1f4d8" or "1f468-200d-1f4bb") as its characters, or "" when it is not that shape. */
export function emojiChar(unified: unknown): string {
  if (typeof unified !== "string" || !/^[0-9a-f]{2,6}(-[0-9a-f]{2,6}){0,9}$/i.test(unified)) return "";
  try {
    return String.fromCodePoint(...unified.split("-").map((h) => parseInt(h, 16)));
  } catch {
    return "";
  }
}
