/**
 * Links a tenant stores for others to follow (portal branding, docs/api-guide.md "Published portals") must be
 * absolute http(s) URLs: anything else (`javascript:`, `data:`, relative paths) is refused on write and, if stored
 * before that rule, never returned.
 */

/** Whether `raw` parses as an absolute http: or https: URL (the URL parser sees through tabs, case and blanks). */
export function isHttpUrl(raw: string): boolean {
  try {
    const url = new URL(raw.trim());
    return url.protocol === "http:" || url.protocol === "https:";
  } catch {
    return false;
  }
}

/** Whether `raw` parses as a URL of any scheme (e.g. `javascript:x`, `acme:x`) rather than a plain handle. */
export function looksLikeUrl(raw: string): boolean {
  try {
    new URL(raw.trim());
    return true;
  } catch {
    return false;
  }
}

/** A link field as it may be shown: "" stays "", an http(s) URL as stored, anything else "". */
export function httpUrlOrEmpty(raw: string | undefined | null): string {
  return raw && isHttpUrl(raw) ? raw : "";
}

/** A social handle as it may be shown: a plain handle, or a URL only when it is http(s). */
export function socialHandleOrEmpty(raw: string | undefined | null): string {
  if (!raw) return "";
  return looksLikeUrl(raw) && !isHttpUrl(raw) ? "" : raw;
}
