/** Error with an HTTP status; serialized as JSON `{ error, message, code? }`. */
export class HttpError extends Error {
  readonly status: number;
  readonly error: string;
  readonly code: string | undefined;
  readonly headers: Record<string, string>;

  constructor(status: number, error: string, message: string, code?: string, headers: Record<string, string> = {}) {
    super(message);
    this.name = error;
    this.status = status;
    this.error = error;
    this.code = code;
    this.headers = headers;
  }

  toJSON(): { error: string; message: string; code?: string } {
    return this.code === undefined
      ? { error: this.error, message: this.message }
      : { error: this.error, message: this.message, code: this.code };
  }
}

export const unauthorized = (message: string) => new HttpError(401, "UnauthorizedError", message, "UNAUTHORIZED");
export const notFound = (message: string) => new HttpError(404, "NotFoundError", message, "NOT_FOUND");
export const methodNotAllowed = (message: string, allow: string) =>
  new HttpError(405, "MethodNotAllowedError", message, "METHOD_NOT_ALLOWED", { allow });
export const payloadTooLarge = (message: string) =>
  new HttpError(413, "PayloadTooLargeError", message, "PAYLOAD_TOO_LARGE", { connection: "close" });
export const unprocessable = (message: string, code = "INVALID_DOCX") =>
  new HttpError(422, "UnprocessableEntityError", message, code);
export const internal = (message: string, code = "INTERNAL") =>
  new HttpError(500, "InternalServerError", message, code);
export const unavailable = (message: string, code: string, retryAfterSeconds?: number) =>
  new HttpError(
    503,
    "ServiceUnavailableError",
    message,
    code,
    retryAfterSeconds === undefined ? {} : { "retry-after": String(Math.max(1, Math.ceil(retryAfterSeconds))) },
  );
