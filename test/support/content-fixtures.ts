import { buildDocx, buildZipWithoutDocument } from "../../converter/test/fixtures";
export { DOCX_MEDIA_TYPE as DOCX_TYPE } from "../../src/lib/docx";

/** A valid DOCX whose bytes differ with `text` (it is the document's title and heading). */
export function docxBytes(text = "Hello"): Uint8Array {
  return buildDocx({ title: text, withHeading: true });
}

/** A ZIP that is not a DOCX (no word/document.xml). */
export const plainZipBytes = buildZipWithoutDocument;

/** `n` bytes that start with `head` and continue with a recognisable pattern. */
export function bytesWithHead(head: number[] | string, n: number): Uint8Array {
  const out = new Uint8Array(n);
  for (let i = 0; i < n; i++) out[i] = (i * 31 + 7) & 0xff;
  const h = typeof head === "string" ? [...head].map((c) => c.charCodeAt(0)) : head;
  out.set(h.slice(0, n));
  return out;
}

export const AUDIO_HEADS: Record<string, number[]> = {
  // An empty ID3v2.4 tag, then an MPEG-1 Layer III frame header: uploads are checked past the tag.
  "audio/mpeg": [0x49, 0x44, 0x33, 0x04, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0xff, 0xfb, 0x90, 0x64],
  "audio/wav": [...asciiBytes("RIFF"), 0x24, 0, 0, 0, ...asciiBytes("WAVE")],
  "audio/x-wav": [...asciiBytes("RIFF"), 0x24, 0, 0, 0, ...asciiBytes("WAVE")],
  "audio/mp4": [0, 0, 0, 0x20, ...asciiBytes("ftypM4A ")],
  "audio/x-m4a": [0, 0, 0, 0x20, ...asciiBytes("ftypM4A ")],
  "audio/ogg": asciiBytes("OggS"),
  "audio/aac": [0xff, 0xf1, 0x50, 0x80],
};

function asciiBytes(s: string) {
  return [...s].map((c) => c.charCodeAt(0));
}

/** A stream that yields `bytes` in `chunk`-sized pieces (for explicit Content-Length tests). */
export function streamOf(bytes: Uint8Array, chunk = 64 * 1024): ReadableStream<Uint8Array> {
  let at = 0;
  return new ReadableStream({
    pull(c) {
      if (at >= bytes.length) return c.close();
      c.enqueue(bytes.slice(at, at + chunk));
      at += chunk;
    },
  });
}
