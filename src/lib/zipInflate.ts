// Whether a ZIP archive's data really inflates to what its headers declare (docs/security-review.md, finding 8).
// converter/src/zip.ts reads and bounds the headers; this inflates every entry, counting and checksumming the
// output and throwing it away, and stops an entry as soon as its output passes the size its headers declare, so
// the work is bounded by the declared sizes (which zip.ts holds to 100 MiB in all) plus ~4 MiB, whatever the data
// really holds. The converter runs the same rule with node:zlib (converter/src/docx.ts, checkInflatedSizes) and
// words its refusals the same way.
//
// fflate's streaming Inflate, pushed a slice at a time, rather than the runtime's DecompressionStream: workerd's
// inflates each written chunk whole before a reader sees any of it (a 64 KiB write of a bomb is 64 MiB of output),
// so it cannot be stopped in time. Between slices the loop yields to the event loop, so other requests of the
// isolate get in while a large archive is checked.
import { Inflate } from "fflate";
import { crc32 } from "node:zlib";
import type { ZipEntry } from "../../converter/src/zip";

/** Deflate gives at most 1032 bytes per compressed byte (a 258-byte match in two bits). */
const MAX_DEFLATE_RATIO = 1032;
/**
 * Compressed bytes pushed at a time: as many as cannot overshoot what the entry may still give by more than
 * MIN_PUSH × 1032 (about 4 MiB), however the data is built, and at most MAX_PUSH. Honest text (~10:1) moves in
 * large pushes; a push that could pass the declared size shrinks to MIN_PUSH.
 */
const MIN_PUSH = 4096;
const MAX_PUSH = 256 * 1024;
/** Output inflated between two yields to the event loop. */
const YIELD_EVERY = 8 * 1024 * 1024;

type Inflated = { size: number; crc: number } | "over" | "corrupt";

const yieldToEventLoop = () => new Promise<void>((resolve) => setTimeout(resolve, 0));

/**
 * Inflates a raw deflate stream push by push, handing each piece of output to `onChunk` while the total stays within
 * `limit`. Yields the bytes each push gave; returns the total, or "over" as soon as it passes `limit`. Throws on a
 * corrupt or truncated stream. Synchronous, so a caller that must not block may pause between pushes.
 */
export function* inflateUpTo(
  data: Uint8Array,
  limit: number,
  onChunk: (chunk: Uint8Array) => void,
): Generator<number, number | "over"> {
  let size = 0;
  let over = false;
  const inflater = new Inflate((chunk) => {
    size += chunk.length;
    if (size > limit) over = true;
    else onChunk(chunk);
  });
  if (data.length === 0) inflater.push(data, true);
  for (let at = 0, push = MIN_PUSH; at < data.length; at += push) {
    push = Math.min(MAX_PUSH, Math.max(MIN_PUSH, Math.floor((limit - size) / MAX_DEFLATE_RATIO)));
    const before = size;
    inflater.push(data.subarray(at, at + push), at + push >= data.length);
    if (over) return "over";
    yield size - before;
  }
  return size;
}

async function inflateCounted(data: Uint8Array, limit: number): Promise<Inflated> {
  let crc = 0;
  let sinceYield = 0;
  try {
    const steps = inflateUpTo(data, limit, (chunk) => {
      crc = crc32(chunk, crc);
    });
    for (let step = steps.next(); ; step = steps.next()) {
      if (step.done) return step.value === "over" ? "over" : { size: step.value, crc };
      sinceYield += step.value;
      if (sinceYield >= YIELD_EVERY) {
        sinceYield = 0;
        await yieldToEventLoop();
      }
    }
  } catch {
    return "corrupt";
  }
}

/**
 * Why the archive's data disagrees with its headers (an entry inflates to more or to fewer bytes than declared,
 * is no valid deflate stream, or fails its CRC-32), or null when every entry gives exactly what it declares.
 * `entries` are zip.ts's, read from the same bytes.
 */
export async function inflationProblem(bytes: Uint8Array, entries: readonly ZipEntry[]): Promise<string | null> {
  for (const entry of entries) {
    const data = bytes.subarray(entry.dataOffset, entry.dataOffset + entry.compressedSize);
    const got =
      entry.method === 0 ? { size: data.byteLength, crc: crc32(data) } : await inflateCounted(data, entry.inflatedSize);
    const name = JSON.stringify(entry.name);
    if (got === "over") return `${name} inflates past the ${entry.inflatedSize} bytes its headers declare`;
    if (got === "corrupt") return `${name} is not a valid deflate stream`;
    if (got.size !== entry.inflatedSize)
      return `${name} inflates to ${got.size} bytes, not the ${entry.inflatedSize} its headers declare`;
    if (got.crc !== entry.crc32) return `${name} fails its CRC-32 check`;
  }
  return null;
}
