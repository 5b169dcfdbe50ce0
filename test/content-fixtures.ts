import { strToU8, zipSync } from "fflate";

/** A minimal valid DOCX: a ZIP with [Content_Types].xml and word/document.xml holding `text`. */
export function docxBytes(text = "Hello"): Uint8Array {
  return zipSync({
    "[Content_Types].xml": strToU8(
      '<?xml version="1.0" encoding="UTF-8"?><Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types">' +
        '<Default Extension="xml" ContentType="application/xml"/>' +
        '<Override PartName="/word/document.xml" ContentType="application/vnd.openxmlformats-officedocument.wordprocessingml.document.main+xml"/></Types>',
    ),
    "word/document.xml": strToU8(
      `<?xml version="1.0" encoding="UTF-8"?><w:document xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main"><w:body><w:p><w:r><w:t>${text}</w:t></w:r></w:p></w:body></w:document>`,
    ),
  });
}

/** A ZIP that is not a DOCX (no word/document.xml). */
export function plainZipBytes(): Uint8Array {
  return zipSync({ "hello.txt": strToU8("hi") });
}

export const DOCX_TYPE = "application/vnd.openxmlformats-officedocument.wordprocessingml.document";

/** `n` bytes that start with `head` and continue with a recognisable pattern. */
export function bytesWithHead(head: number[] | string, n: number): Uint8Array {
  const out = new Uint8Array(n);
  for (let i = 0; i < n; i++) out[i] = (i * 31 + 7) & 0xff;
  const h = typeof head === "string" ? [...head].map((c) => c.charCodeAt(0)) : head;
  out.set(h.slice(0, n));
  return out;
}

export const AUDIO_HEADS: Record<string, number[]> = {
  "audio/mpeg": [0x49, 0x44, 0x33, 0x04, 0x00],
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
