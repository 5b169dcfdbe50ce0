/**
 * The one place service errors become HTTP responses (docs/api-guide.md › Errors): each class's status, the body,
 * Retry-After, and the error responses the OpenAPI document lists.
 */
import { z } from "@hono/zod-openapi";
import type { Context } from "hono";
import type { ContentfulStatusCode } from "hono/utils/http-status";
import type { HonoEnv } from "../env";
import { ApiError, type ErrorCode, type ErrorDetail } from "../errors";
import { IdempotentReplay, replayResponse } from "./idempotency";
import { createDb } from "../db/client";
import { fenceRefusalOf, learnFromFence } from "../services/context";

/** The status each error class answers with. */
export const errorStatus = {
  ValidationError: 400,
  UnauthorizedError: 401,
  ForbiddenError: 403,
  NotFoundError: 404,
  MethodNotAllowedError: 405,
  ConflictError: 409,
  GoneError: 410,
  LengthRequiredError: 411,
  PreconditionFailedError: 412,
  PayloadTooLargeError: 413,
  UnsupportedMediaTypeError: 415,
  RangeNotSatisfiableError: 416,
  UnprocessableEntityError: 422,
  RateLimitedError: 429,
  InternalError: 500,
  ServiceUnavailableError: 503,
} as const satisfies Record<ErrorCode, ContentfulStatusCode>;

export function renderError(err: Error, c: Context<HonoEnv>): Response {
  // Not an error: the Idempotency-Key already holds this request's response (src/http/idempotency.ts).
  if (err instanceof IdempotentReplay) return replayResponse(err.response);
  if (err instanceof ApiError) {
    const headers: Record<string, string> = {};
    if (err.retryAfterSeconds !== undefined) headers["Retry-After"] = String(err.retryAfterSeconds);
    return c.json(errorBody(err.code, err.message, err.details), errorStatus[err.code], headers);
  }
  // Hono's own exceptions (a malformed JSON body, a body over its limit) carry a client status.
  const status = (err as { status?: number }).status;
  if (typeof status === "number" && status >= 400 && status < 500) {
    const code =
      status === 413 ? "PayloadTooLargeError" : status === 415 ? "UnsupportedMediaTypeError" : "ValidationError";
    // The only 415 Hono raises is the OpenAPI body gate of a route with a JSON body (raw uploads answer their own).
    const contentType = c.req.header("content-type")?.split(";")[0]?.trim();
    const message =
      status === 400
        ? "The request body is not valid JSON"
        : status === 415
          ? `This operation accepts a JSON body: send it with Content-Type: application/json (the request had ${contentType ? `Content-Type: ${contentType}` : "no Content-Type"})`
          : err.message;
    return c.json(errorBody(code, message), code === "ValidationError" ? 400 : (status as 413 | 415));
  }
  // A shard database refused a write because its logical shard is moving or has moved (the fence, the shard baseline, migrations/shard/0000;
  // docs/scaling.md "Moving a logical shard"): nothing was written, and a retry succeeds — after the copy, or at
  // once on the new database, which this isolate looks up now for the retry to find.
  const refusal = fenceRefusalOf(err);
  if (refusal) {
    if (refusal === "moved") c.executionCtx.waitUntil(learnFromFence(createDb(c.env.DB), err));
    const message =
      refusal === "read-only"
        ? "This organization's records are being moved to another database; writes resume within seconds"
        : "This organization's records have moved to another database; retry the request";
    return c.json(errorBody("ServiceUnavailableError", message), 503, {
      "Retry-After": refusal === "read-only" ? "2" : "1",
    });
  }
  console.error(
    JSON.stringify({
      level: "error",
      requestId: c.get("requestId"),
      path: c.req.path,
      error: String(err),
      stack: err.stack,
    }),
  );
  return c.json(errorBody("InternalError", "An unexpected error occurred; it has been logged"), 500);
}

export const ErrorBodySchema = z
  .object({
    error: z.string().openapi({ example: "NotFoundError" }),
    message: z.string(),
    details: z
      .array(
        z.object({
          path: z.string(),
          message: z.string(),
          line: z
            .number()
            .int()
            .optional()
            .openapi({ description: "Formula problems: the 1-based line in the formula's text" }),
          column: z
            .number()
            .int()
            .optional()
            .openapi({ description: "Formula problems: the 1-based column in the formula's text" }),
          oldestCursor: z
            .string()
            .optional()
            .openapi({ description: "410 of the change feed: the oldest cursor still kept" }),
          suggestions: z
            .array(z.string())
            .optional()
            .openapi({ description: "Formula problems: the nearest column or function names" }),
        }),
      )
      .optional(),
  })
  .openapi("Error");

const descriptions: Record<ErrorCode, string> = {
  ValidationError: "The body, query or path failed validation",
  UnauthorizedError: "Missing, unknown, expired or revoked credential",
  ForbiddenError: "The caller's role does not allow this operation",
  NotFoundError: "No such record, or the caller cannot read it",
  MethodNotAllowedError: "Known path, wrong method",
  ConflictError: "Duplicate id, stale version or other state conflict",
  GoneError: "The cursor is older than the change log keeps; restart from details[0].oldestCursor",
  LengthRequiredError: "Content-Length is required",
  PreconditionFailedError: "If-Match does not match the current ETag; nothing was changed",
  PayloadTooLargeError: "Body over its size limit",
  UnsupportedMediaTypeError: "Wrong content type or bytes that do not match it",
  RangeNotSatisfiableError: "The requested byte range lies outside the file",
  UnprocessableEntityError: "Valid shape, impossible meaning",
  RateLimitedError: "Too many requests; see Retry-After",
  InternalError: "Unexpected failure",
  ServiceUnavailableError: "A dependency is down or timed out",
};

/** Sent with 429 (and with 503 when a dependency names a time): when a retry may succeed (RFC 9110 §10.2.3). */
const retryAfterHeader = {
  "Retry-After": {
    description: "Seconds to wait before retrying",
    schema: { type: "integer" as const, minimum: 0, maximum: 86_400 },
  },
};

function errorResponse(code: ErrorCode) {
  const response = { description: descriptions[code], content: { "application/json": { schema: ErrorBodySchema } } };
  return code === "RateLimitedError" ? { ...response, headers: retryAfterHeader } : response;
}

/**
 * What every authenticated operation can answer whatever it does: 401, 403 (a scoped token without the operation's
 * scope, docs/api-guide.md › Tokens and scopes) and 429 (over the user's rate, or too many failed authentications).
 */
export function authErrorResponses() {
  return onlyErrorResponses("UnauthorizedError", "ForbiddenError", "RateLimitedError");
}

const defaultCodes: ErrorCode[] = [
  "ValidationError",
  "UnauthorizedError",
  "ForbiddenError",
  "NotFoundError",
  "RateLimitedError",
  "InternalError",
];

/** Error responses for a route's `responses`, keyed by status, so the OpenAPI document lists them truthfully. */
export function errorResponses(...extra: ErrorCode[]) {
  return onlyErrorResponses(...defaultCodes, ...extra);
}

/** Exactly these error responses, for routes whose contract documents fewer than the default set. */
export function onlyErrorResponses(...codes: ErrorCode[]) {
  const out: Record<number, ReturnType<typeof errorResponse>> = {};
  for (const code of codes) out[errorStatus[code]] = errorResponse(code);
  return out;
}

export function errorBody(code: ErrorCode, message: string, details?: ErrorDetail[]) {
  return details ? { error: code, message, details } : { error: code, message };
}
