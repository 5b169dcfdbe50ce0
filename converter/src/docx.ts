// Cheap checks of an uploaded DOCX before it takes an office process: it must be a consistent ZIP archive
// (zip.ts: central directory, zip64 records and local headers agree) with WordprocessingML parts, whose entries
// declare no more than the bounds allow and really inflate to what they declare (inflated here, streaming, and
// thrown away). LibreOffice remains the judge of the content (it reports load failures as LOAD_FAILED).
import { crc32, createInflateRaw } from "node:zlib";
import { HttpError, unprocessable } from "./errors.ts";
import { DOCX_BOUNDS, inspectZip, type ZipBounds, type ZipEntry } from "./zip.ts";

const OLE2_MAGIC = [0xd0, 0xcf, 0x11, 0xe0, 0xa1, 0xb1, 0x1a, 0xe1];

export const inflatedTooLarge = (message: string) =>
  new HttpError(413, "PayloadTooLargeError", message, "INFLATED_TOO_LARGE", { connection: "close" });

/** An HttpError (413 or 422) describing why `bytes` is not a usable DOCX, or the archive's entries. */
export function inspectDocx(
  bytes: Uint8Array,
  bounds: ZipBounds = DOCX_BOUNDS,
): { error: HttpError } | { entries: ZipEntry[] } {
  if (bytes.length === 0) return { error: unprocessable("Request body is empty: expected DOCX bytes.", "EMPTY_BODY") };
  if (OLE2_MAGIC.every((b, i) => bytes[i] === b)) {
    return {
      error: unprocessable(
        "Input is an OLE2 compound file (a legacy .doc or a password-protected document); only unencrypted DOCX is supported.",
        "UNSUPPORTED_FORMAT",
      ),
    };
  }
  if (!(bytes[0] === 0x50 && bytes[1] === 0x4b && bytes[2] === 0x03 && bytes[3] === 0x04)) {
    return { error: unprocessable("Input is not a DOCX file: it is not a ZIP archive.", "INVALID_DOCX") };
  }
  const zip = inspectZip(bytes, bounds);
  if (!zip.ok && zip.kind === "too-large") {
    return { error: inflatedTooLarge(`Input is refused before conversion: ${zip.reason}.`) };
  }
  if (!zip.ok) {
    return {
      error: unprocessable(
        `Input is not a readable DOCX file: its ZIP archive is truncated or corrupt (${zip.reason}).`,
        "INVALID_DOCX",
      ),
    };
  }
  if (!zip.entries.some((e) => e.name.toLowerCase().startsWith("word/"))) {
    return {
      error: unprocessable(
        "Input is a ZIP archive but not a DOCX file: it has no word/document.xml part.",
        "INVALID_DOCX",
      ),
    };
  }
  return { entries: zip.entries };
}

/** Returns an HttpError (413/422) describing why `bytes` is not a usable DOCX, or undefined if it looks fine. */
export function checkDocx(bytes: Uint8Array, bounds: ZipBounds = DOCX_BOUNDS): HttpError | undefined {
  const inspected = inspectDocx(bytes, bounds);
  return "error" in inspected ? inspected.error : undefined;
}

/**
 * Inflates every entry (streaming; the output is counted and checksummed, never kept) and answers 422 unless each
 * gives exactly the size and CRC-32 its headers declare. Stops an entry at its declared size plus one byte, so the
 * work is bounded by what `inspectDocx` already allowed, and a header that lies about a bomb costs no more.
 */
export async function checkInflatedSizes(
  bytes: Uint8Array,
  entries: readonly ZipEntry[],
): Promise<HttpError | undefined> {
  for (const entry of entries) {
    const data = bytes.subarray(entry.dataOffset, entry.dataOffset + entry.compressedSize);
    const got =
      entry.method === 0 ? { size: data.byteLength, crc: crc32(data) } : await inflate(data, entry.inflatedSize);
    const name = JSON.stringify(entry.name);
    let problem: string | undefined;
    if (got === "over") problem = `${name} inflates past the ${entry.inflatedSize} bytes its headers declare`;
    else if (got === "corrupt") problem = `${name} is not a valid deflate stream`;
    else if (got.size !== entry.inflatedSize)
      problem = `${name} inflates to ${got.size} bytes, not the ${entry.inflatedSize} its headers declare`;
    else if (got.crc !== entry.crc32) problem = `${name} fails its CRC-32 check`;
    if (problem)
      return unprocessable(
        `Input is not a readable DOCX file: its ZIP archive is inconsistent (${problem}).`,
        "INVALID_DOCX",
      );
  }
  return undefined;
}

function inflate(data: Uint8Array, limit: number): Promise<{ size: number; crc: number } | "over" | "corrupt"> {
  return new Promise((resolve) => {
    const inflater = createInflateRaw({ chunkSize: 64 * 1024 });
    let size = 0;
    let crc = 0;
    let settled = false;
    const settle = (value: { size: number; crc: number } | "over" | "corrupt") => {
      if (settled) return;
      settled = true;
      resolve(value);
    };
    inflater.on("data", (chunk: Buffer) => {
      size += chunk.byteLength;
      if (size > limit) {
        settle("over");
        inflater.destroy();
        return;
      }
      crc = crc32(chunk, crc);
    });
    inflater.on("error", () => settle("corrupt"));
    inflater.on("end", () => settle({ size, crc }));
    inflater.on("close", () => settle("corrupt")); // destroyed without end or error: never reached after "over"
    inflater.end(data);
  });
}
