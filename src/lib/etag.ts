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
 * The version a write expects the record to be at (src/http/conditional.ts reads it from If-Match): any current
 * record, or one of these versions — the strong tags of the record's representation (`etagOf`). A weak tag never
 * equals one, so only the exact current representation lets a write through (RFC 9110 §13.1.1).
 */
export type ExpectedVersion = "any" | readonly string[];

/** Whether `version` (the record's current one) is what the write expects. */
export function versionMatches(expected: ExpectedVersion, version: string): boolean {
  return expected === "any" || expected.includes(version);
}

/**
 * A write's precondition: the record's current representation (the one its GET returns; undefined when there is
 * no record) must be at an expected version, else 412 and nothing changes. No expectation: no precondition.
 */
export async function assertExpectedVersion(expected: ExpectedVersion | undefined, currentRepresentation: () => unknown | Promise<unknown>) {
  if (expected === undefined) return;
  const current = await currentRepresentation();
  if (current === undefined || current === null) throw preconditionFailed();
  if (!versionMatches(expected, await etagOf(current))) throw preconditionFailed();
}
