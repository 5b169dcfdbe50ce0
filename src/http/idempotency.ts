/**
 * `Idempotency-Key` on POST routes (API.md §17): the first response (status and body) is kept 24 hours under
 * (caller, key); a repeat of the same request gets it again with `Idempotent-Replayed: true`. The request is
 * identified by method, path, query and a SHA-256 of its body (for raw uploads: their declared type and length,
 * so a 50 MiB upload is never buffered just to be hashed).
 */
import type { MiddlewareHandler } from "hono";
import type { HonoEnv } from "../env";
import { validation } from "../errors";
import { sha256Hex } from "../lib/crypto";
import { claimIdempotencyKey, releaseIdempotencyKey, rememberResponse } from "../services/idempotency";
import { ctxOf } from "./route";
import { ensureAuthenticated } from "../services/context";

const KEY_PATTERN = /^[\x20-\x7e]{1,255}$/;
/** Responses larger than this are not kept (a replay then runs the request again under its own key). */
const MAX_STORED_BODY = 1024 * 1024;

export const idempotency: MiddlewareHandler<HonoEnv> = async (c, next) => {
  const key = c.req.header("idempotency-key");
  if (key === undefined) return next();
  if (!KEY_PATTERN.test(key)) {
    throw validation("Idempotency-Key must be 1–255 printable ASCII characters", [{ path: "Idempotency-Key", message: "invalid" }]);
  }
  const ctx = ctxOf(c);
  // A route whose authentication rides in its first read: the key belongs to the caller, so authenticate now.
  await ensureAuthenticated(ctx);
  const url = new URL(c.req.url);
  const type = c.req.header("content-type") ?? "";
  const bodyPart = /json|form|text/i.test(type) ? await sha256Hex(await c.req.text()) : `${type};${c.req.header("content-length") ?? ""}`;
  const requestHash = await sha256Hex(`${c.req.method} ${url.pathname}?${url.searchParams.toString()}\n${bodyPart}`);

  const claimed = await claimIdempotencyKey(ctx, key, requestHash);
  if (claimed.kind === "replay") {
    const { status, contentType, body } = claimed.response;
    return new Response(body, {
      status,
      headers: { ...(contentType && { "content-type": contentType }), "idempotent-replayed": "true" },
    });
  }
  try {
    await next();
  } catch (err) {
    await releaseIdempotencyKey(ctx, key, claimed.claim);
    throw err;
  }
  const res = c.res;
  if (res.status >= 500) {
    await releaseIdempotencyKey(ctx, key, claimed.claim);
    return;
  }
  const text = await res.clone().text();
  if (text.length > MAX_STORED_BODY) {
    await releaseIdempotencyKey(ctx, key, claimed.claim);
    return;
  }
  await rememberResponse(ctx, key, claimed.claim, { status: res.status, contentType: res.headers.get("content-type"), body: text });
};
