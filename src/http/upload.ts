/**
 * Raw-bytes uploads (audio, DOCX): the headers are read here, before anything else of the body, and the service gets
 * plain values — the declared length and the body stream — so a lying Content-Length is still caught by the
 * service counting the actual bytes.
 */
import type { Context } from "hono";
import type { HonoEnv } from "../env";
import { ApiError, validation } from "../errors";

/** docs/api-guide.md › Limits: audio and DOCX bodies are capped at 50 MiB. */
export const MAX_UPLOAD_BYTES = 50 * 1024 * 1024;

export interface RawUpload {
  /** The declared Content-Length (checked against `limit`). */
  length: number;
  /** The media type sent, lower case without parameters; "" when absent. */
  mediaType: string;
  body: ReadableStream<Uint8Array> | null;
}

/** The Content-Length of a raw upload: absent → 411, malformed → 400, over `limit` → 413. */
export function declaredLength(raw: string | undefined | null, limit = MAX_UPLOAD_BYTES): number {
  if (raw === null || raw === undefined)
    throw new ApiError("LengthRequiredError", "Content-Length is required for a raw upload");
  if (!/^\s*\d{1,16}\s*$/.test(raw))
    throw validation("Content-Length must be a non-negative integer", [
      { path: "content-length", message: "not an integer" },
    ]);
  const n = Number(raw);
  if (n > limit) throw new ApiError("PayloadTooLargeError", `The body is ${n} bytes; the limit is ${limit} bytes`);
  return n;
}

/** 415 unless the Content-Type is absent, `application/octet-stream`, or accepted by `accept`. */
export function checkRawContentType(raw: string | undefined | null, accept: (mediaType: string) => boolean): string {
  if (raw === null || raw === undefined) return "";
  const mediaType = raw.split(";")[0]!.trim().toLowerCase();
  if (mediaType === "" || mediaType === "application/octet-stream" || accept(mediaType)) return mediaType;
  throw new ApiError(
    "UnsupportedMediaTypeError",
    `Content-Type ${mediaType} is not accepted here; send the raw bytes as application/octet-stream`,
  );
}

/** The request's raw body with its type (415) and declared length (411/400/413) checked. */
export function rawUploadOf(
  c: Context<HonoEnv>,
  accept: (mediaType: string) => boolean,
  limit = MAX_UPLOAD_BYTES,
): RawUpload {
  const mediaType = checkRawContentType(c.req.header("content-type"), accept);
  const length = declaredLength(c.req.header("content-length"), limit);
  return { length, mediaType, body: c.req.raw.body };
}

/** Room a multipart envelope may take beyond the file it carries (boundaries and part headers). */
const MULTIPART_ALLOWANCE = 64 * 1024;

/**
 * A file sent either as the body itself (one of `mediaTypes`) or as the `file` part of multipart/form-data (which
 * workerd reads whole): the declared length is checked first (413 past `limit`, multipart allowed its envelope),
 * then the file's stream is handed over, to be counted as it is read. `what` names the file in messages.
 */
export async function fileBodyOf(
  c: Context<HonoEnv>,
  opts: { mediaTypes: readonly string[]; limit: number; what: string },
): Promise<ReadableStream<Uint8Array> | null> {
  const type = (c.req.header("content-type") ?? "").split(";")[0]!.trim().toLowerCase();
  const length = c.req.header("content-length");
  if (length !== undefined)
    declaredLength(length, type === "multipart/form-data" ? opts.limit + MULTIPART_ALLOWANCE : opts.limit);
  if (type === "multipart/form-data") {
    let form: FormData;
    try {
      form = await c.req.formData();
    } catch {
      throw validation("The multipart body cannot be read", [
        { path: "body", message: "malformed multipart/form-data" },
      ]);
    }
    const file = form.get("file");
    if (file === null || typeof file === "string")
      throw validation(`The form needs a \`file\` part holding the ${opts.what}`, [
        { path: "file", message: "missing" },
      ]);
    return file.stream();
  }
  if (!opts.mediaTypes.includes(type)) {
    throw new ApiError(
      "UnsupportedMediaTypeError",
      `Send the ${opts.what} as ${opts.mediaTypes[0]}, or as the file part of multipart/form-data`,
    );
  }
  return bodyStream(c);
}

/**
 * The request's body as a stream: its own, or — when something before the route read it already (a keyed POST's
 * request hash, src/http/idempotency.ts) — a stream over the bytes Hono kept from that read.
 */
async function bodyStream(c: Context<HonoEnv>): Promise<ReadableStream<Uint8Array> | null> {
  if (!c.req.raw.bodyUsed) return c.req.raw.body;
  return new Response(await c.req.arrayBuffer()).body;
}
