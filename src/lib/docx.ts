// The ZIP reader is the converter's own (converter/src/zip.ts, no runtime APIs), so the Worker and the converter
// hold a DOCX to the very same structure checks and bounds (docs/api-guide.md, "Resource bounds").
import { DOCX_BOUNDS, inspectZip } from "../../converter/src/zip";

export const DOCX_MEDIA_TYPE = "application/vnd.openxmlformats-officedocument.wordprocessingml.document";

export interface DocxProblem {
  /** "malformed": not a consistent ZIP holding word/document.xml; "too-large": its entries declare too much. */
  kind: "malformed" | "too-large";
  reason: string;
}

/**
 * Why the bytes are not an acceptable DOCX, or null when they are a consistent ZIP archive holding
 * `word/document.xml` whose entries inflate to at most 100 MiB in all and 100:1 each (entries over 1 MiB).
 * Only the archive's records are read: nothing is inflated.
 */
export function docxProblem(bytes: Uint8Array): DocxProblem | null {
  const zip = inspectZip(bytes, DOCX_BOUNDS);
  if (!zip.ok) return zip.kind === "too-large" ? { kind: "too-large", reason: zip.reason } : { kind: "malformed", reason: `not a readable ZIP archive: ${zip.reason}` };
  if (!zip.entries.some((e) => e.name === "word/document.xml")) return { kind: "malformed", reason: "no word/document.xml in the archive" };
  return null;
}
