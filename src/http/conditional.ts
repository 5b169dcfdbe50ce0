/**
 * Conditional requests (docs/api-guide.md › HTTP semantics: retries, caching, replicas). GETs of single records answer with a strong ETag and 304 on a matching
 * `If-None-Match`; writes read `If-Match` here into the version their service expects (lib/etag.ts `ExpectedVersion`),
 * which the service compares with the record's current version before changing anything.
 */
import type { Context } from "hono";
import type { HonoEnv } from "../env";
import { etagListMatches, etagOf, type ExpectedVersion } from "../lib/etag";

/** A JSON 200 with its ETag, or 304 when the client already holds this representation. */
export async function jsonWithEtag<T>(c: Context<HonoEnv>, body: T) {
  const text = JSON.stringify(body);
  const etag = await etagOf(text);
  const inm = c.req.header("if-none-match");
  if (inm && etagListMatches(inm, etag)) {
    return c.body(null, 304, { ETag: etag });
  }
  return c.body(text, 200, { "Content-Type": "application/json; charset=UTF-8", ETag: etag }) as unknown as Response & {
    _body: T;
  };
}

/**
 * The version the client's `If-Match` expects the record it changes to be at: `*` any current record, else the
 * listed tags (weak ones included: they never equal a version, so they never match). Absent: no expectation.
 */
export function expectedVersionOf(c: Context<HonoEnv>): ExpectedVersion | undefined {
  const header = c.req.header("if-match");
  if (header === undefined) return undefined;
  const tags = header.split(",").map((t) => t.trim());
  return tags.includes("*") ? "any" : tags;
}

/** Sets the ETag of a JSON representation on a write's response (what a following If-Match should send). */
export async function withEtag(c: Context<HonoEnv>, body: unknown) {
  c.header("ETag", await etagOf(JSON.stringify(body)));
}

/**
 * A JSON 200 whose ETag is known before its body (a version-derived tag, or one computed from a record's immutable
 * parts): 304 without producing the body when `If-None-Match` names `etag`; otherwise `produce()` gives the body text
 * and the tag that goes with it (which may differ from `etag` when the record moved on in between).
 */
export async function jsonTextWithEtag(
  c: Context<HonoEnv>,
  etag: string,
  produce: () => Promise<{ etag: string; text: string }>,
) {
  const inm = c.req.header("if-none-match");
  if (inm && etagListMatches(inm, etag)) return c.body(null, 304, { ETag: etag });
  const out = await produce();
  return c.body(out.text, 200, {
    "Content-Type": "application/json; charset=UTF-8",
    ETag: out.etag,
  }) as unknown as Response;
}

/**
 * The request's `If-None-Match` / `If-Match` as the `onlyIf` of an R2 read (R2 evaluates them against the object's
 * own ETag; a failed condition returns the object without a body). Undefined when neither is sent.
 */
export function r2ConditionsOf(c: Context<HonoEnv>): Headers | undefined {
  const out = new Headers();
  for (const name of ["if-none-match", "if-match"]) {
    const value = c.req.header(name);
    if (value !== undefined) out.set(name, value);
  }
  return [...out.keys()].length > 0 ? out : undefined;
}
