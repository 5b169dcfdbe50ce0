/** Strong entity tags (API.md §17) computed from a representation, so the same bytes always carry the same tag. */
import { sha256Hex } from "./crypto";
import { preconditionFailed } from "../errors";

export async function etagOf(representation: unknown): Promise<string> {
  const text = typeof representation === "string" ? representation : JSON.stringify(representation);
  return `"${(await sha256Hex(text)).slice(0, 32)}"`;
}

/** Whether an `If-Match` / `If-None-Match` list names `etag` (`*` matches any current record). */
export function etagListMatches(header: string, etag: string): boolean {
  const bare = (t: string) => t.trim().replace(/^W\//, "");
  return header.split(",").some((t) => t.trim() === "*" || bare(t) === bare(etag));
}

/**
 * The If-Match check of a write: the header's tags against the ETag of the record's current representation
 * (the one its GET returns). Absent header: no precondition.
 */
export async function assertIfMatch(ifMatch: string | undefined, currentRepresentation: () => unknown | Promise<unknown>) {
  if (ifMatch === undefined) return;
  const current = await currentRepresentation();
  if (current === undefined || current === null) throw preconditionFailed();
  if (!etagListMatches(ifMatch, await etagOf(current))) throw preconditionFailed();
}
