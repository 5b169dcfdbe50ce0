/**
 * Raw-bytes uploads (audio, DOCX): the declared length (checked against the limit by src/http/upload.ts before
 * anything is read) and the actual bytes are counted, so a lying Content-Length can never let more than it through.
 */
import { validation } from "../../errors";

const lengthMismatch = (what: string) =>
  validation(`The body is ${what} than its Content-Length`, [{ path: "body", message: `${what} than Content-Length` }]);

/** Reads exactly `length` bytes into one buffer; a body longer or shorter than that is 400. */
export async function readExactly(body: ReadableStream<Uint8Array> | null, length: number): Promise<Uint8Array> {
  const out = new Uint8Array(length);
  if (!body) {
    if (length !== 0) throw lengthMismatch("shorter");
    return out;
  }
  const reader = body.getReader();
  let filled = 0;
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      if (filled + value.byteLength > length) throw lengthMismatch("longer");
      out.set(value, filled);
      filled += value.byteLength;
    }
  } catch (err) {
    await reader.cancel().catch(() => {});
    throw err;
  }
  if (filled !== length) throw lengthMismatch("shorter");
  return out;
}

export interface Prefix {
  /** The chunks read so far, to be re-emitted before the rest of the stream. */
  chunks: Uint8Array[];
  /** Their first `want` bytes (fewer when the stream ended first). */
  head: Uint8Array;
  /** True when the stream ended while reading the prefix. */
  done: boolean;
}

/** Reads whole chunks from `reader` until at least `want` bytes are in hand or the stream ends. */
export async function readPrefix(reader: ReadableStreamDefaultReader<Uint8Array>, want: number): Promise<Prefix> {
  const chunks: Uint8Array[] = [];
  let have = 0;
  let done = false;
  while (have < want) {
    const r = await reader.read();
    if (r.done) {
      done = true;
      break;
    }
    if (r.value.byteLength === 0) continue;
    chunks.push(r.value);
    have += r.value.byteLength;
  }
  const head = new Uint8Array(Math.min(have, want));
  let at = 0;
  for (const c of chunks) {
    if (at >= head.length) break;
    const part = c.subarray(0, head.length - at);
    head.set(part, at);
    at += part.byteLength;
  }
  return { chunks, head, done };
}

/**
 * Streams `prefix` followed by the rest of `body` into R2 under `key` without holding it in memory. R2 needs a known
 * length: a FixedLengthStream of the declared length errors when the bytes run short or long, the put then fails
 * and nothing is stored (400).
 */
export async function streamToR2(
  r2: R2Bucket,
  key: string,
  length: number,
  prefix: Prefix,
  reader: ReadableStreamDefaultReader<Uint8Array>,
  options: R2PutOptions,
): Promise<R2Object> {
  const { readable, writable } = new FixedLengthStream(length);
  const put = r2.put(key, readable, options);
  const pump = (async () => {
    const writer = writable.getWriter();
    let written = 0;
    try {
      const write = async (chunk: Uint8Array) => {
        written += chunk.byteLength;
        if (written > length) throw lengthMismatch("longer");
        await writer.write(chunk);
      };
      for (const c of prefix.chunks) await write(c);
      if (!prefix.done) {
        for (;;) {
          const r = await reader.read();
          if (r.done) break;
          await write(r.value);
        }
      }
      if (written < length) throw lengthMismatch("shorter");
      await writer.close();
    } catch (err) {
      await writer.abort(err).catch(() => {});
      await reader.cancel().catch(() => {});
      throw err;
    }
  })();
  const [stored, pumped] = await Promise.allSettled([put, pump]);
  if (pumped.status === "rejected") {
    await r2.delete(key).catch(() => {});
    throw pumped.reason;
  }
  if (stored.status === "rejected") {
    await r2.delete(key).catch(() => {});
    throw lengthMismatch("shorter or longer");
  }
  return stored.value;
}
