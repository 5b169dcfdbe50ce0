// Cheap structural check of an uploaded DOCX before it takes an office process:
// it must be a ZIP archive (central directory readable) with WordprocessingML parts.
// LibreOffice remains the judge of the content (it reports load failures as LOAD_FAILED).
import { unprocessable, type HttpError } from "./errors.ts";

const OLE2_MAGIC = [0xd0, 0xcf, 0x11, 0xe0, 0xa1, 0xb1, 0x1a, 0xe1];

/** Returns an HttpError (422) describing why `bytes` is not a usable DOCX, or undefined if it looks fine. */
export function checkDocx(bytes: Uint8Array): HttpError | undefined {
  if (bytes.length === 0) return unprocessable("Request body is empty: expected DOCX bytes.", "EMPTY_BODY");
  if (OLE2_MAGIC.every((b, i) => bytes[i] === b)) {
    return unprocessable(
      "Input is an OLE2 compound file (a legacy .doc or a password-protected document); only unencrypted DOCX is supported.",
      "UNSUPPORTED_FORMAT",
    );
  }
  if (!(bytes[0] === 0x50 && bytes[1] === 0x4b && bytes[2] === 0x03 && bytes[3] === 0x04)) {
    return unprocessable("Input is not a DOCX file: it is not a ZIP archive.", "INVALID_DOCX");
  }
  const names = zipEntryNames(bytes);
  if (names === undefined) {
    return unprocessable("Input is not a readable DOCX file: its ZIP archive is truncated or corrupt.", "INVALID_DOCX");
  }
  if (names !== "zip64" && !names.some((n) => n.toLowerCase().startsWith("word/"))) {
    return unprocessable(
      "Input is a ZIP archive but not a DOCX file: it has no word/document.xml part.",
      "INVALID_DOCX",
    );
  }
  return undefined;
}

/** Entry names from the ZIP central directory; undefined if unreadable; "zip64" if not inspected. */
function zipEntryNames(bytes: Uint8Array): string[] | "zip64" | undefined {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const minEocd = Math.max(0, bytes.length - 22 - 0xffff);
  let eocd = -1;
  for (let i = bytes.length - 22; i >= minEocd; i--) {
    if (view.getUint32(i, true) === 0x06054b50) {
      eocd = i;
      break;
    }
  }
  if (eocd < 0) return undefined;
  const count = view.getUint16(eocd + 10, true);
  const cdSize = view.getUint32(eocd + 12, true);
  const cdOffset = view.getUint32(eocd + 16, true);
  if (count === 0xffff || cdSize === 0xffffffff || cdOffset === 0xffffffff) return "zip64";
  if (cdOffset + cdSize > eocd) return undefined;
  const decoder = new TextDecoder();
  const names: string[] = [];
  let p = cdOffset;
  for (let i = 0; i < count; i++) {
    if (p + 46 > eocd || view.getUint32(p, true) !== 0x02014b50) return undefined;
    const nameLen = view.getUint16(p + 28, true);
    const extraLen = view.getUint16(p + 30, true);
    const commentLen = view.getUint16(p + 32, true);
    if (p + 46 + nameLen > eocd) return undefined;
    names.push(decoder.decode(bytes.subarray(p + 46, p + 46 + nameLen)));
    p += 46 + nameLen + extraLen + commentLen;
  }
  return names;
}
