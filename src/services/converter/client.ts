/**
 * The Worker's side of the PDF converter (docs/api-guide.md › Files, export and media). Locally and in tests the converter is a process at
 * CONVERTER_URL; in production it is a Cloudflare Container bound as PDF_CONVERTER. Either way a failure to
 * get a PDF back is a 503, except an unreadable document (422) or one whose ZIP entries inflate past the bounds
 * (413), which are the caller's.
 */
import { getRandom } from "@cloudflare/containers";
import type { Env } from "../../env";
import { ApiError } from "../../errors";
import { DOCX_MEDIA_TYPE } from "../../lib/docx";

/** Containers the Worker spreads conversions over in production; each runs its own office pool. */
const CONTAINER_INSTANCES = 3;
const BASE_TIMEOUT_MS = 60_000;
const PER_MIB_TIMEOUT_MS = 15_000;

const SECRET_HEADER = "x-converter-secret";

function unavailable(reason: string) {
  return new ApiError("ServiceUnavailableError", `The PDF converter is unavailable: ${reason}`, {
    retryAfterSeconds: 5,
  });
}

async function send(env: Env, docx: Uint8Array, signal: AbortSignal): Promise<Response> {
  const init: RequestInit = {
    method: "POST",
    headers: {
      "content-type": DOCX_MEDIA_TYPE,
      ...(env.CONVERTER_SECRET ? { [SECRET_HEADER]: env.CONVERTER_SECRET } : {}),
    },
    body: docx,
    signal,
  };
  if (env.CONVERTER_URL) return fetch(new URL("/convert", env.CONVERTER_URL), init);
  if (env.PDF_CONVERTER) {
    const stub = await getRandom(env.PDF_CONVERTER, CONTAINER_INSTANCES);
    return stub.fetch(new Request("http://converter/convert", init));
  }
  throw unavailable("no CONVERTER_URL or PDF_CONVERTER container is configured");
}

/** `cancel` lets a caller abandon the conversion (E6 does when the access check fails meanwhile). */
export async function convertDocxToPdf(env: Env, docx: Uint8Array, cancel?: AbortSignal): Promise<Uint8Array> {
  const timeoutMs = BASE_TIMEOUT_MS + Math.ceil(docx.byteLength / (1024 * 1024)) * PER_MIB_TIMEOUT_MS;
  const timeout = AbortSignal.timeout(timeoutMs);
  let res: Response;
  try {
    res = await send(env, docx, cancel ? AbortSignal.any([timeout, cancel]) : timeout);
  } catch (err) {
    if (err instanceof ApiError) throw err;
    const timedOut = err instanceof Error && (err.name === "TimeoutError" || err.name === "AbortError");
    throw unavailable(timedOut ? "the conversion timed out" : "it could not be reached");
  }
  if (res.ok) return new Uint8Array(await res.arrayBuffer());
  const detail = await res.json<{ message?: string }>().catch(() => null);
  if (res.status === 413) {
    throw new ApiError(
      "PayloadTooLargeError",
      `The DOCX was refused by the converter: ${detail?.message ?? "it inflates past the size limits"}`,
    );
  }
  if (res.status === 422) {
    throw new ApiError(
      "UnprocessableEntityError",
      `The DOCX could not be read by the office suite: ${detail?.message ?? "unreadable document"}`,
    );
  }
  throw unavailable(detail?.message ?? `it answered ${res.status}`);
}
