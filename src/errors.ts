import { z } from "@hono/zod-openapi";
import type { ContentfulStatusCode } from "hono/utils/http-status";

/**
 * The closed catalogue of error classes (docs/api-guide.md › Errors). Services throw them without knowing about HTTP; the status
 * each one answers with is applied once, by `app.onError` (src/http/errors.ts), from this table.
 */
export const errorCodes = {
  ValidationError: 400,
  UnauthorizedError: 401,
  ForbiddenError: 403,
  NotFoundError: 404,
  MethodNotAllowedError: 405,
  ConflictError: 409,
  LengthRequiredError: 411,
  PreconditionFailedError: 412,
  PayloadTooLargeError: 413,
  UnsupportedMediaTypeError: 415,
  RangeNotSatisfiableError: 416,
  UnprocessableEntityError: 422,
  RateLimitedError: 429,
  InternalError: 500,
  ServiceUnavailableError: 503,
} as const satisfies Record<string, ContentfulStatusCode>;

export type ErrorCode = keyof typeof errorCodes;

export interface ErrorDetail {
  path: string;
  message: string;
  /** Where in a formula's text the problem is (1-based), and names that may have been meant. */
  line?: number;
  column?: number;
  suggestions?: string[];
}

/** A transport-neutral domain error: a class from the catalogue, a message, details, and when to retry. */
export class ApiError extends Error {
  readonly code: ErrorCode;
  readonly details?: ErrorDetail[];
  /** Seconds after which a retry may succeed (rate limits, an unavailable dependency). */
  readonly retryAfterSeconds?: number;

  constructor(code: ErrorCode, message: string, opts: { details?: ErrorDetail[]; retryAfterSeconds?: number } = {}) {
    super(message);
    this.name = code;
    this.code = code;
    this.details = opts.details;
    this.retryAfterSeconds = opts.retryAfterSeconds;
  }

  get status(): ContentfulStatusCode {
    return errorCodes[this.code];
  }
}

export const notFound = (what = "Resource") => new ApiError("NotFoundError", `${what} not found`);
export const forbidden = (message = "Your role does not allow this operation") => new ApiError("ForbiddenError", message);
export const conflict = (message: string) => new ApiError("ConflictError", message);
export const validation = (message: string, details?: ErrorDetail[]) => new ApiError("ValidationError", message, { details });
export const preconditionFailed = (message = "If-Match does not match the record's current ETag; nothing was changed") =>
  new ApiError("PreconditionFailedError", message);
export const unprocessable = (message: string, details?: ErrorDetail[]) =>
  new ApiError("UnprocessableEntityError", message, { details });

export const ErrorBodySchema = z
  .object({
    error: z.string().openapi({ example: "NotFoundError" }),
    message: z.string(),
    details: z
      .array(
        z.object({
          path: z.string(),
          message: z.string(),
          line: z.number().int().optional().openapi({ description: "Formula problems: the 1-based line in the formula's text" }),
          column: z.number().int().optional().openapi({ description: "Formula problems: the 1-based column in the formula's text" }),
          suggestions: z.array(z.string()).optional().openapi({ description: "Formula problems: the nearest column or function names" }),
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

/** What every authenticated operation can answer whatever it does: 401 and 429 (over the user's rate, or too many failed authentications). */
export function authErrorResponses() {
  return onlyErrorResponses("UnauthorizedError", "RateLimitedError");
}

const defaultCodes: ErrorCode[] = ["ValidationError", "UnauthorizedError", "ForbiddenError", "NotFoundError", "RateLimitedError", "InternalError"];

/** Error responses for a route's `responses`, keyed by status, so the OpenAPI document lists them truthfully. */
export function errorResponses(...extra: ErrorCode[]) {
  return onlyErrorResponses(...defaultCodes, ...extra);
}

/** Exactly these error responses, for routes whose contract documents fewer than the default set. */
export function onlyErrorResponses(...codes: ErrorCode[]) {
  const out: Record<number, ReturnType<typeof errorResponse>> = {};
  for (const code of codes) out[errorCodes[code]] = errorResponse(code);
  return out;
}

export function errorBody(code: ErrorCode, message: string, details?: ErrorDetail[]) {
  return details ? { error: code, message, details } : { error: code, message };
}
