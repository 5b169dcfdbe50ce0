import { unzipSync } from "fflate";

export const DOCX_MEDIA_TYPE = "application/vnd.openxmlformats-officedocument.wordprocessingml.document";

/**
 * Why the bytes are not a DOCX, or null when they are a ZIP archive holding `word/document.xml` — the least a
 * DOCX must be. Only the central directory is read: the filter declines every entry, so nothing is inflated.
 */
export function docxProblem(bytes: Uint8Array): string | null {
  let found = false;
  try {
    unzipSync(bytes, {
      filter: (file) => {
        if (file.name === "word/document.xml") found = true;
        return false;
      },
    });
  } catch {
    return "not a ZIP archive";
  }
  return found ? null : "no word/document.xml in the archive";
}
