/** The one place domain errors become HTTP responses (docs/api-guide.md › Errors). */
import type { Context } from "hono";
import type { HonoEnv } from "../env";
import { ApiError, errorBody } from "../errors";
import { IdempotentReplay, replayResponse } from "./idempotency";

export function renderError(err: Error, c: Context<HonoEnv>): Response {
  // Not an error: the Idempotency-Key already holds this request's response (src/http/idempotency.ts).
  if (err instanceof IdempotentReplay) return replayResponse(err.response);
  if (err instanceof ApiError) {
    const headers: Record<string, string> = {};
    if (err.retryAfterSeconds !== undefined) headers["Retry-After"] = String(err.retryAfterSeconds);
    return c.json(errorBody(err.code, err.message, err.details), err.status, headers);
  }
  // Hono's own exceptions (a malformed JSON body, a body over its limit) carry a client status.
  const status = (err as { status?: number }).status;
  if (typeof status === "number" && status >= 400 && status < 500) {
    const code = status === 413 ? "PayloadTooLargeError" : status === 415 ? "UnsupportedMediaTypeError" : "ValidationError";
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
  console.error(JSON.stringify({ level: "error", requestId: c.get("requestId"), path: c.req.path, error: String(err), stack: err.stack }));
  return c.json(errorBody("InternalError", "An unexpected error occurred; it has been logged"), 500);
}
