/** Strong ETags and If-None-Match (RFC 9110 §13.1.2) for responses whose version is known before rendering. */
import { etagListMatches } from "../lib/etag";

export function strongEtag(version: string): string {
  return `"${version}"`;
}

/** Whether If-None-Match names this ETag (or is `*`); weak comparison, as If-None-Match requires. */
export function ifNoneMatchHits(header: string | undefined | null, etag: string): boolean {
  return !!header && etagListMatches(header, etag);
}

/** The request's host (as in its URL, which the runtime builds from Host) without a trailing dot, lower-case, as portal domains are stored. */
export function requestHost(hostHeader: string | undefined | null): string | null {
  if (!hostHeader) return null;
  const h = hostHeader.trim().toLowerCase().replace(/\.$/, "");
  return h.length > 0 && h.length <= 260 ? h : null;
}
