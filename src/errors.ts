/**
 * The service error (docs/api-guide.md › Errors): transport-neutral — a class from the closed catalogue below, a
 * message and details. Services throw it without knowing about HTTP; the status and body each class answers with
 * are applied in one place, src/http/errors.ts.
 */
export const ERROR_CODES = [
  "ValidationError",
  "UnauthorizedError",
  "ForbiddenError",
  "NotFoundError",
  "MethodNotAllowedError",
  "ConflictError",
  "GoneError",
  "LengthRequiredError",
  "PreconditionFailedError",
  "PayloadTooLargeError",
  "UnsupportedMediaTypeError",
  "RangeNotSatisfiableError",
  "UnprocessableEntityError",
  "RateLimitedError",
  "InternalError",
  "ServiceUnavailableError",
] as const;

export type ErrorCode = (typeof ERROR_CODES)[number];

export interface ErrorDetail {
  path: string;
  message: string;
  /** Where in a formula's text the problem is (1-based), and names that may have been meant. */
  line?: number;
  column?: number;
  suggestions?: string[];
  /** A change-feed cursor older than retention (410): where the kept entries begin. */
  oldestCursor?: string;
}

/** A transport-neutral service error: a class from the catalogue, a message, details, and when to retry. */
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
}

export const notFound = (what = "Resource") => new ApiError("NotFoundError", `${what} not found`);
export const forbidden = (message = "Your role does not allow this operation") =>
  new ApiError("ForbiddenError", message);
export const conflict = (message: string) => new ApiError("ConflictError", message);
export const validation = (message: string, details?: ErrorDetail[]) =>
  new ApiError("ValidationError", message, { details });
export const preconditionFailed = (
  message = "If-Match does not match the record's current ETag; nothing was changed",
) => new ApiError("PreconditionFailedError", message);
export const unprocessable = (message: string, details?: ErrorDetail[]) =>
  new ApiError("UnprocessableEntityError", message, { details });
