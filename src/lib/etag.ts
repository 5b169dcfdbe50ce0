/** Strong entity tags (docs/api-guide.md › HTTP semantics: retries, caching, replicas) computed from a representation, so the same bytes always carry the same tag. */
import { sha256Hex } from "./crypto";
import { preconditionFailed } from "../errors";

export async function etagOf(representation: unknown): Promise<string> {
  const text = typeof representation === "string" ? representation : JSON.stringify(representation);
  return `"${(await sha256Hex(text)).slice(0, 32)}"`;
}

/**
 * Whether an `If-None-Match` list names `etag` by the weak comparison RFC 9110 §13.1.2 asks for (`W/` ignored; `*` matches
 * any current record).
 */
export function etagListMatches(header: string, etag: string): boolean {
  const bare = (t: string) => t.trim().replace(/^W\//, "");
  return header.split(",").some((t) => t.trim() === "*" || bare(t) === bare(etag));
}

/**
 * Whether an `If-Match` list names `etag` by the strong comparison RFC 9110 §13.1.1 requires: a weak tag (`W/…`)
 * never matches, so only the exact current representation lets a write through (`*` matches any current record).
 */
export function ifMatchListMatches(header: string, etag: string): boolean {
  return header.split(",").some((t) => t.trim() === "*" || t.trim() === etag);
}

/**
 * The If-Match check of a write: the header's tags against the ETag of the record's current representation
 * (the one its GET returns). Absent header: no precondition.
 */
export async function assertIfMatch(ifMatch: string | undefined, currentRepresentation: () => unknown | Promise<unknown>) {
  if (ifMatch === undefined) return;
  const current = await currentRepresentation();
  if (current === undefined || current === null) throw preconditionFailed();
  if (!ifMatchListMatches(ifMatch, await etagOf(current))) throw preconditionFailed();
}
