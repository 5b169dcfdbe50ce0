/**
 * `Idempotency-Key` on POST routes (API.md §17): the first response (status and body) is kept 24 hours under
 * (caller, key); a repeat of the same request gets it again with `Idempotent-Replayed: true`. The request is
 * identified by method, path, query and a SHA-256 of its body (for raw uploads: their declared type and length,
 * so a 50 MiB upload is never buffered just to be hashed). The key is claimed in the authentication batch, so it
 * costs one round trip more than the request itself (remembering the response).
 */
import type { Context, Next } from "hono";
import type { HonoEnv } from "../env";
import { validation } from "../errors";
import { sha256Hex } from "../lib/crypto";
import type { ServiceContext } from "../services/context";
import { newClaim, releaseIdempotencyKey, rememberResponse, settleClaim, type ClaimRequest } from "../services/idempotency";
import type { idempotencyKeys } from "../db/schema";

const KEY_PATTERN = /^[\x20-\x7e]{1,255}$/;
/** Responses larger than this are not kept (a repeat then runs again; its first run's key is released). */
const MAX_STORED_BODY = 1024 * 1024;

/** The claim this request asks for, or null without an Idempotency-Key header; 400 for a malformed key. */
export async function idempotencyRequest(c: Context<HonoEnv>): Promise<ClaimRequest | null> {
  const key = c.req.header("idempotency-key");
  if (key === undefined) return null;
  if (!KEY_PATTERN.test(key)) {
    throw validation("Idempotency-Key must be 1–255 printable ASCII characters", [{ path: "Idempotency-Key", message: "invalid" }]);
  }
  const url = new URL(c.req.url);
  const type = c.req.header("content-type") ?? "";
  const bodyPart = /json|form|text/i.test(type) ? await sha256Hex(await c.req.text()) : `${type};${c.req.header("content-length") ?? ""}`;
  return newClaim(key, await sha256Hex(`${c.req.method} ${url.pathname}?${url.searchParams.toString()}\n${bodyPart}`));
}

/** Runs the request under its claimed key: replays a finished one, else runs it and remembers what it answered. */
export async function runIdempotent(c: Context<HonoEnv>, next: Next, ctx: ServiceContext, req: ClaimRequest, row: typeof idempotencyKeys.$inferSelect | undefined) {
  const claimed = settleClaim(req, row);
  if (claimed.kind === "replay") {
    const { status, contentType, body } = claimed.response;
    c.res = new Response(body, { status, headers: { ...(contentType && { "content-type": contentType }), "idempotent-replayed": "true" } });
    return;
  }
  await next();
  const res = c.res;
  const text = res.status < 500 ? await res.clone().text() : null;
  if (text === null || text.length > MAX_STORED_BODY) {
    await releaseIdempotencyKey(ctx, req.key, req.claim);
    return;
  }
  await rememberResponse(ctx, req.key, req.claim, { status: res.status, contentType: res.headers.get("content-type"), body: text });
}
