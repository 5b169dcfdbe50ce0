// The ZIP reader is the converter's own (converter/src/zip.ts, no runtime APIs), so the Worker and the converter
// hold a DOCX to the very same structure checks and bounds (docs/api-guide.md, "Resource bounds"); both then check
// that the data inflates to exactly what the headers declare (zipInflate.ts here, checkInflatedSizes there).
import { DOCX_BOUNDS, inspectZip, type ZipEntry } from "../../converter/src/zip";
import { inflationProblem } from "./zipInflate";

export const DOCX_MEDIA_TYPE = "application/vnd.openxmlformats-officedocument.wordprocessingml.document";

export interface DocxProblem {
  /** "malformed": not a consistent ZIP holding word/document.xml; "too-large": its entries declare too much. */
  kind: "malformed" | "too-large";
  reason: string;
}

/**
 * Why the bytes are not an acceptable DOCX, or null when they are a consistent ZIP archive holding
 * `word/document.xml` whose entries declare at most 100 MiB inflated in all and 100:1 each (entries over 1 MiB).
 * Only the archive's records are read: nothing is inflated (E6 leaves the inflation to the converter).
 */
export function docxProblem(bytes: Uint8Array): DocxProblem | null {
  return inspectDocx(bytes).problem;
}

function inspectDocx(bytes: Uint8Array): { problem: DocxProblem | null; entries: ZipEntry[] } {
  const zip = inspectZip(bytes, DOCX_BOUNDS);
  if (!zip.ok) {
    const reason = zip.kind === "too-large" ? zip.reason : `not a readable ZIP archive: ${zip.reason}`;
    return { problem: { kind: zip.kind, reason }, entries: [] };
  }
  if (!zip.entries.some((e) => e.name === "word/document.xml"))
    return { problem: { kind: "malformed", reason: "no word/document.xml in the archive" }, entries: [] };
  return { problem: null, entries: zip.entries };
}

/**
 * docxProblem, then every entry inflated (streaming, output counted and dropped) and held to the size and CRC-32
 * its headers declare: data that disagrees with its headers is "malformed". The work stops as soon as an entry
 * passes its declared size, so it is bounded by the declared sizes docxProblem allowed (100 MiB in all), whatever
 * the data really holds.
 */
export async function verifiedDocxProblem(bytes: Uint8Array): Promise<DocxProblem | null> {
  const { problem, entries } = inspectDocx(bytes);
  if (problem) return problem;
  const lie = await inflationProblem(bytes, entries);
  return lie ? { kind: "malformed", reason: `its data disagrees with its headers: ${lie}` } : null;
}
