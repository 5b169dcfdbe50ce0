/**
 * The text the search index holds for a record (docs/api-guide.md › Search): plain text of BlockNote blocks and of a
 * DOCX file's main part. Nothing here touches the database; the index is derived from what these return.
 */
import { inspectZip, DOCX_BOUNDS } from "../../../converter/src/zip";
import { inflateUpTo } from "../../lib/zipInflate";

/** Most characters of one record's body the index keeps (the rest is not searchable, the record itself is intact). */
const MAX_BODY_CHARS = 200_000;
const MAX_DEPTH = 32;

type Json = unknown;

function isObj(v: unknown): v is Record<string, Json> {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

/** Control characters mark highlights in snippets (see snippetHtml), so indexed text never carries any. */
function clean(text: string): string {
  return text.replace(/[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f]/g, " ");
}

function inlineText(content: Json, depth: number, out: string[]) {
  if (depth > MAX_DEPTH) return;
  if (typeof content === "string") return void out.push(content);
  if (Array.isArray(content)) {
    for (const c of content) inlineText(c, depth + 1, out);
    return;
  }
  if (!isObj(content)) return;
  if (typeof content.text === "string") out.push(content.text);
  if (content.type === "tableContent" && Array.isArray(content.rows)) {
    for (const row of content.rows) {
      const cells = isObj(row) && Array.isArray(row.cells) ? row.cells : [];
      for (const cell of cells) {
        inlineText(isObj(cell) && cell.type === "tableCell" ? cell.content : cell, depth + 1, out);
        out.push(" ");
      }
      out.push("\n");
    }
    return;
  }
  if (content.content !== undefined) inlineText(content.content, depth + 1, out);
}

function blockText(block: Json, depth: number, out: string[]) {
  if (depth > MAX_DEPTH || !isObj(block)) return;
  inlineText(block.content, depth + 1, out);
  const props = block.props;
  if (isObj(props) && typeof props.caption === "string" && props.caption) out.push(" ", props.caption);
  out.push("\n");
  if (Array.isArray(block.children)) for (const child of block.children) blockText(child, depth + 1, out);
}

/** Plain text of a document's blocks (text, links, tables, captions, nested children), one line per block. */
function blocksText(blocks: Json): string {
  const out: string[] = [];
  if (Array.isArray(blocks)) for (const b of blocks) blockText(b, 0, out);
  return clean(out.join("")).slice(0, MAX_BODY_CHARS);
}

/** blocksText of stored JSON text; unparseable text indexes as nothing. */
export function blocksJsonText(blocksJson: string): string {
  try {
    return blocksText(JSON.parse(blocksJson));
  } catch {
    return "";
  }
}

const XML_ENTITIES: Record<string, string> = { amp: "&", lt: "<", gt: ">", quot: '"', apos: "'" };

function decodeXml(s: string): string {
  return s.replace(/&(#x[0-9a-fA-F]+|#[0-9]+|[a-z]+);/g, (m, e: string) => {
    if (e[0] === "#") {
      const code = e[1] === "x" ? parseInt(e.slice(2), 16) : parseInt(e.slice(1), 10);
      return Number.isFinite(code) && code > 0 && code <= 0x10ffff ? String.fromCodePoint(code) : " ";
    }
    return XML_ENTITIES[e] ?? m;
  });
}

/** The main part is read only when it inflates to at most this (larger files index their name only). */
const MAX_DOCUMENT_XML = 16 * 1024 * 1024;

/**
 * The inflated bytes of a raw deflate stream, stopped as soon as they pass `declared` (the size the archive's
 * headers declare): null unless it inflates to exactly that. Pushed a slice at a time (zipInflate.ts), never decoded
 * whole into a buffer, which would not stop it.
 */
function inflateDeclared(raw: Uint8Array, declared: number): Uint8Array | null {
  const out = new Uint8Array(declared);
  let at = 0;
  const steps = inflateUpTo(raw, declared, (chunk) => {
    out.set(chunk, at);
    at += chunk.length;
  });
  let step = steps.next();
  while (!step.done) step = steps.next();
  return step.value === declared ? out : null;
}

/**
 * Text of a DOCX file's `word/document.xml`: the runs' text (`w:t`), a line per paragraph. Empty when the archive or
 * its main part cannot be read, or inflates to other than the size its headers declare (inflation stops past it): a
 * file's text is a convenience of search, never a reason to refuse the upload (the upload's own check does).
 */
export function docxText(bytes: Uint8Array): string {
  try {
    const zip = inspectZip(bytes, DOCX_BOUNDS);
    if (!zip.ok) return "";
    const entry = zip.entries.find((e) => e.name === "word/document.xml");
    if (!entry || entry.inflatedSize > MAX_DOCUMENT_XML) return "";
    const raw = bytes.subarray(entry.dataOffset, entry.dataOffset + entry.compressedSize);
    // Uploads are checked before they are stored, but snapshots and the reindex read blobs stored before that.
    const xmlBytes = entry.method === 0 ? raw : inflateDeclared(raw, entry.inflatedSize);
    if (!xmlBytes) return "";
    const xml = new TextDecoder().decode(xmlBytes);
    const out: string[] = [];
    const re = /<w:t(?:\s[^>]*)?>([^<]*)<\/w:t>|<\/w:p>|<w:tab\/>|<w:br\/>/g;
    for (let m = re.exec(xml); m; m = re.exec(xml)) {
      if (m[1] !== undefined) out.push(decodeXml(m[1]));
      else out.push(m[0] === "</w:p>" ? "\n" : " ");
      if (out.length > MAX_BODY_CHARS) break;
    }
    return clean(out.join("")).slice(0, MAX_BODY_CHARS);
  } catch {
    return "";
  }
}
