import { unzipSync } from "fflate";

/**
 * True when the bytes are a ZIP archive holding `word/document.xml` — the least a DOCX must be. Only that
 * entry is inflated (the filter rejects every other one), so the check costs little even on large files.
 */
export function looksLikeDocx(bytes: Uint8Array): boolean {
  if (bytes.length < 4 || bytes[0] !== 0x50 || bytes[1] !== 0x4b) return false;
  try {
    const entries = unzipSync(bytes, { filter: (file) => file.name === "word/document.xml" });
    return entries["word/document.xml"] !== undefined;
  } catch {
    return false;
  }
}

export const DOCX_MEDIA_TYPE = "application/vnd.openxmlformats-officedocument.wordprocessingml.document";
