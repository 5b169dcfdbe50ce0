// Whether a ZIP archive's data really inflates to what its headers declare (docs/security-review.md, finding 8).
// converter/src/zip.ts reads and bounds the headers; this inflates every entry, counting and checksumming the
// output and throwing it away, and stops an entry as soon as its output passes the size its headers declare, so
// the work is bounded by the declared sizes (which zip.ts holds to 100 MiB in all) plus one push, whatever the data
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

/** Compressed bytes pushed at a time: deflate gives at most ~1032 times as much, so a lie shows within ~4 MiB. */
const PUSH = 4096;
/** Output inflated between two yields to the event loop. */
const YIELD_EVERY = 8 * 1024 * 1024;

type Inflated = { size: number; crc: number } | "over" | "corrupt";

const yieldToEventLoop = () => new Promise<void>((resolve) => setTimeout(resolve, 0));

async function inflateCounted(data: Uint8Array, limit: number): Promise<Inflated> {
  let size = 0;
  let crc = 0;
  let over = false;
  const inflater = new Inflate((chunk) => {
    size += chunk.length;
    if (size > limit) over = true;
    else crc = crc32(chunk, crc);
  });
  let sinceYield = 0;
  try {
    for (let at = 0; at < data.length; at += PUSH) {
      const before = size;
      inflater.push(data.subarray(at, at + PUSH), at + PUSH >= data.length);
      if (over) return "over";
      sinceYield += size - before;
      if (sinceYield >= YIELD_EVERY) {
        sinceYield = 0;
        await yieldToEventLoop();
      }
    }
    if (data.length === 0) inflater.push(data, true);
  } catch {
    return "corrupt";
  }
  return { size, crc };
}

/**
 * Why the archive's data disagrees with its headers (an entry inflates to more or to fewer bytes than declared,
 * is no valid deflate stream, or fails its CRC-32), or null when every entry gives exactly what it declares.
 * `entries` are zip.ts's, read from the same bytes.
 */
export async function inflationProblem(bytes: Uint8Array, entries: readonly ZipEntry[]): Promise<string | null> {
  for (const entry of entries) {
    const data = bytes.subarray(entry.dataOffset, entry.dataOffset + entry.compressedSize);
    const got = entry.method === 0 ? { size: data.byteLength, crc: crc32(data) } : await inflateCounted(data, entry.inflatedSize);
    const name = JSON.stringify(entry.name);
    if (got === "over") return `${name} inflates past the ${entry.inflatedSize} bytes its headers declare`;
    if (got === "corrupt") return `${name} is not a valid deflate stream`;
    if (got.size !== entry.inflatedSize) return `${name} inflates to ${got.size} bytes, not the ${entry.inflatedSize} its headers declare`;
    if (got.crc !== entry.crc32) return `${name} fails its CRC-32 check`;
  }
  return null;
}
