/**
 * `Idempotency-Key` on POST routes (docs/api-guide.md › HTTP semantics: retries, caching, replicas): the first response (status and body) is kept 24 hours under
 * (caller, key); a repeat of the same request gets it again with `Idempotent-Replayed: true`. The request is
 * identified by method, path, query and a SHA-256 of its body (for raw uploads: their declared type and length,
 * so a 50 MiB upload is never buffered just to be hashed). The key is claimed in the authentication batch, so it
 * costs one round trip more than the request itself (remembering the response).
 */
import type { Context, Next } from "hono";
import type { HonoEnv } from "../env";
import { validation } from "../errors";
import { sha256Hex } from "../lib/crypto";
import { ownClaim, type ServiceContext } from "../services/context";
import {
  newClaim,
  openStoredResponse,
  releaseIdempotencyKey,
  rememberResponse,
  settleClaim,
  type Claim,
  type ClaimRequest,
  type IdempotencyRecord,
  type StoredResponse,
} from "../services/idempotency";

const KEY_PATTERN = /^[\x20-\x7e]{1,255}$/;
/**
 * Bodies hashed whole: JSON (`+json` too), forms and text, matched on the media type itself (the DOCX type's name
 * contains "form", yet a DOCX is a raw upload whose stream its service reads).
 */
const HASHED_BODY_TYPE =
  /^(?:application\/(?:[\w.-]+\+)?json|application\/x-www-form-urlencoded|multipart\/form-data|text\/[\w.+-]+)$/i;
/** Responses larger than this are not kept (a repeat then runs again; its first run's key is released). */
const MAX_STORED_BODY = 1024 * 1024;

/** The claim this request asks for, or null without an Idempotency-Key header; 400 for a malformed key. */
export async function idempotencyRequest(c: Context<HonoEnv>): Promise<ClaimRequest | null> {
  const key = c.req.header("idempotency-key");
  if (key === undefined) return null;
  if (!KEY_PATTERN.test(key)) {
    throw validation("Idempotency-Key must be 1–255 printable ASCII characters", [
      { path: "Idempotency-Key", message: "invalid" },
    ]);
  }
  const url = new URL(c.req.url);
  const type = c.req.header("content-type") ?? "";
  // The bytes, not a decoded text: Hono keeps what is read here for the route (its JSON, form or file readers, and
  // src/http/upload.ts), and a file part must reach the route byte for byte. For UTF-8 text the hash is the same.
  const bodyPart = HASHED_BODY_TYPE.test(type.split(";")[0]!.trim())
    ? await sha256Hex(await c.req.arrayBuffer())
    : `${type};${c.req.header("content-length") ?? ""}`;
  return newClaim(key, await sha256Hex(`${c.req.method} ${url.pathname}?${url.searchParams.toString()}\n${bodyPart}`));
}

/** The stored response of a finished request with the same key, sent again. */
export function replayResponse({ status, contentType, body }: StoredResponse): Response {
  return new Response(body, {
    status,
    headers: { ...(contentType && { "content-type": contentType }), "idempotent-replayed": "true" },
  });
}

/**
 * Thrown from the batch that claimed the key when the key already holds a finished response: it stops the handler
 * before it writes anything (only reads rode in that batch), and `app.onError` answers with the stored response.
 */
export class IdempotentReplay extends Error {
  constructor(readonly response: StoredResponse) {
    super("Idempotent replay");
  }
}

/** What a route does before its kept answer is replayed (the admin's registration completes its shards' part). */
export type OnReplay = (ctx: ServiceContext, kept: StoredResponse) => Promise<void>;

/**
 * Runs the request under its claimed key: replays a finished one, else runs it and remembers what it answered.
 * `callerId` is the key's owner when it is not the authenticated user (the deployment admin).
 */
export async function runIdempotent(
  c: Context<HonoEnv>,
  next: Next,
  ctx: ServiceContext,
  req: ClaimRequest,
  row: IdempotencyRecord | undefined,
  callerId?: string,
  onReplay?: OnReplay,
) {
  const claimed = await settleOwnedClaim(ctx, req, row, callerId);
  if (claimed.kind === "replay") {
    await onReplay?.(ctx, claimed.response);
    c.res = replayResponse(claimed.response);
    return;
  }
  await next();
  await rememberOrRelease(c, ctx, req, callerId);
}

/**
 * What the claim's record says (see settleClaim), with a kept response opened for replay; when this request owns
 * the key, the service context learns it, so a write can keep its answer in its own batch.
 */
export async function settleOwnedClaim(
  ctx: ServiceContext,
  req: ClaimRequest,
  row: IdempotencyRecord | undefined,
  callerId = ctx.user.id,
): Promise<Claim> {
  const claimed = settleClaim(req, row);
  if (claimed.kind === "replay")
    return { kind: "replay", response: await openStoredResponse(ctx, { record: row!, response: claimed.response }) };
  ownClaim(ctx, { callerId, key: req.key, claim: req.claim, binding: ctx.binding });
  return claimed;
}

/** After the request that owns the key: keep its response (not a 5xx, not too large), else free the key for a retry. */
export async function rememberOrRelease(
  c: Context<HonoEnv>,
  ctx: ServiceContext,
  req: ClaimRequest,
  callerId = ctx.user.id,
) {
  const res = c.res;
  const text = res.status < 500 ? await textUpTo(res.clone(), MAX_STORED_BODY) : null;
  if (text === null) {
    await releaseIdempotencyKey(ctx, { key: req.key, claim: req.claim, callerId });
    return;
  }
  await rememberResponse(ctx, {
    key: req.key,
    claim: req.claim,
    response: { status: res.status, contentType: res.headers.get("content-type"), body: text },
    callerId,
  });
}

/**
 * The body as text when it fits in `limit` bytes, else null. Reads the clone only that far and cancels it, so a
 * large streamed answer (E5) is not buffered whole just to find it is too large to keep.
 */
async function textUpTo(res: Response, limit: number): Promise<string | null> {
  if (!res.body) return "";
  const reader = res.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > limit) {
      await reader.cancel();
      return null;
    }
    chunks.push(value);
  }
  const all = new Uint8Array(size);
  let at = 0;
  for (const chunk of chunks) {
    all.set(chunk, at);
    at += chunk.byteLength;
  }
  return new TextDecoder().decode(all);
}
