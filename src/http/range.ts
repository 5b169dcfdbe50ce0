/**
 * `Range: bytes=…` (RFC 9110 §14) for objects whose size is known before they are read: the route parses the header
 * into a plain range for the service, which hands it to R2's own `range` option; the answer's `Content-Range` is
 * built here from what R2 served.
 */
import type { Context } from "hono";
import type { HonoEnv } from "../env";
import { errorBody } from "./errors";
import type { ByteRange } from "../lib/r2";

/**
 * A single `bytes=` range of a `size`-byte object: `null` when the header is absent, malformed or asks for several
 * ranges (served whole), `"unsatisfiable"` for a range outside the object.
 */
export function parseRange(header: string | undefined, size: number): ByteRange | null | "unsatisfiable" {
  if (!header) return null;
  const m = /^\s*bytes\s*=\s*(\d*)\s*-\s*(\d*)\s*$/i.exec(header);
  if (!m || (m[1] === "" && m[2] === "")) return null;
  if (m[1] === "") {
    const suffix = Number(m[2]);
    if (suffix === 0 || size === 0) return "unsatisfiable";
    const length = Math.min(suffix, size);
    return { offset: size - length, length };
  }
  const start = Number(m[1]);
  if (m[2] !== "" && Number(m[2]) < start) return null;
  if (start >= size) return "unsatisfiable";
  const end = m[2] === "" ? size - 1 : Math.min(Number(m[2]), size - 1);
  return { offset: start, length: end - start + 1 };
}

/** The request's Range as a function of the object's size, for a service that learns the size from its record. */
export function rangeOf(c: Context<HonoEnv>): (size: number) => ByteRange | null | "unsatisfiable" {
  const header = c.req.header("range");
  return (size) => parseRange(header, size);
}

export function contentRange(range: ByteRange, size: number): string {
  return `bytes ${range.offset}-${range.offset + range.length - 1}/${size}`;
}

/** 416 with the `Content-Range: bytes *\/size` RFC 9110 §15.5.17 asks for. */
export function rangeNotSatisfiable(c: Context<HonoEnv>, size: number) {
  return c.json(errorBody("RangeNotSatisfiableError", `The range is outside the ${size}-byte file`), 416, {
    "Content-Range": `bytes */${size}`,
  });
}
