/** A write's If-Match, as the services check it: src/http/conditional.ts reads the expected version, lib/etag.ts compares. */
import { preconditionFailed } from "../errors";
import { etagOf, versionMatches, type ExpectedVersion } from "../lib/etag";

/**
 * A write's precondition: the record's current representation (the one its GET returns; undefined when there is
 * no record) must be at an expected version, else 412 and nothing changes. No expectation: no precondition.
 */
export async function assertExpectedVersion(
  expected: ExpectedVersion | undefined,
  currentRepresentation: () => unknown | Promise<unknown>,
) {
  if (expected === undefined) return;
  const current = await currentRepresentation();
  if (current === undefined || current === null) throw preconditionFailed();
  if (!versionMatches(expected, await etagOf(current))) throw preconditionFailed();
}
