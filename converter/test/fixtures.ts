// Programmatic DOCX fixtures (a DOCX is a ZIP of WordprocessingML parts).
// Reused by the Worker tests and the benchmarks: keep the exports stable.
import { constants, crc32, deflateRawSync } from "node:zlib";
import { strToU8, zipSync, type Zippable } from "fflate";

export interface BuildDocxOptions {
  /** Number of pages; each page ends with an explicit page break. Default 1. */
  pages?: number;
  /** Add a 4-column table on the first page. Default false. */
  withTable?: boolean;
  /** Start with a "Heading 1" paragraph. Default false. */
  withHeading?: boolean;
  /** Paragraphs of body text per page. Default 3. */
  paragraphsPerPage?: number;
  /** Document title used in the heading and core properties. */
  title?: string;
}

const W_NS = "http://schemas.openxmlformats.org/wordprocessingml/2006/main";
const LOREM =
  "Lorem ipsum dolor sit amet, consectetur adipiscing elit, sed do eiusmod tempor incididunt ut labore et " +
  "dolore magna aliqua. Ut enim ad minim veniam, quis nostrud exercitation ullamco laboris nisi ut aliquip ex " +
  "ea commodo consequat. Duis aute irure dolor in reprehenderit in voluptate velit esse cillum dolore eu fugiat.";

function esc(s: string): string {
  return s.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;").replace(/"/g, "&quot;");
}

function para(text: string, style?: string): string {
  const pPr = style ? `<w:pPr><w:pStyle w:val="${style}"/></w:pPr>` : "";
  return `<w:p>${pPr}<w:r><w:t xml:space="preserve">${esc(text)}</w:t></w:r></w:p>`;
}

const PAGE_BREAK = `<w:p><w:r><w:br w:type="page"/></w:r></w:p>`;

function table(rows: number, cols: number): string {
  const border = (side: string) => `<w:${side} w:val="single" w:sz="4" w:space="0" w:color="000000"/>`;
  const borders = ["top", "left", "bottom", "right", "insideH", "insideV"].map(border).join("");
  let xml = `<w:tbl><w:tblPr><w:tblW w:w="5000" w:type="pct"/><w:tblBorders>${borders}</w:tblBorders></w:tblPr><w:tblGrid>`;
  for (let c = 0; c < cols; c++) xml += `<w:gridCol w:w="2000"/>`;
  xml += `</w:tblGrid>`;
  for (let r = 0; r < rows; r++) {
    xml += `<w:tr>`;
    for (let c = 0; c < cols; c++) {
      const text = r === 0 ? `Column ${c + 1}` : `R${r}C${c + 1}: ${(r * 7 + c * 13) % 1000}`;
      xml += `<w:tc><w:tcPr><w:tcW w:w="2000" w:type="dxa"/></w:tcPr>${para(text)}</w:tc>`;
    }
    xml += `</w:tr>`;
  }
  return xml + `</w:tbl>`;
}

/**
 * A few pseudo-random words per paragraph, so the XML compresses like real text (about 10:1) rather than like
 * one sentence repeated (over 100:1, which the converter refuses for parts over 1 MiB as a ZIP bomb).
 */
function words(seed: number, count = 6): string {
  let x = (seed * 2654435761) >>> 0 || 1;
  const out: string[] = [];
  for (let w = 0; w < count; w++) {
    let word = "";
    for (let c = 0; c < 5; c++) {
      x ^= x << 13;
      x ^= x >>> 17;
      x ^= x << 5;
      word += String.fromCharCode(97 + ((x >>> 0) % 26));
    }
    out.push(word);
  }
  return out.join(" ");
}

function documentXml(opts: Required<BuildDocxOptions>): string {
  const body: string[] = [];
  for (let page = 1; page <= opts.pages; page++) {
    if (page === 1 && opts.withHeading) body.push(para(opts.title, "Heading1"));
    if (page === 1 && opts.withTable) body.push(table(6, 4));
    body.push(para(`Page ${page} of ${opts.pages}`, "Heading2"));
    for (let i = 0; i < opts.paragraphsPerPage; i++) body.push(para(`${LOREM} ${words(page * 1000 + i)}`));
    if (page < opts.pages) body.push(PAGE_BREAK);
  }
  const sect =
    `<w:sectPr><w:pgSz w:w="11906" w:h="16838"/>` +
    `<w:pgMar w:top="1440" w:right="1440" w:bottom="1440" w:left="1440" w:header="708" w:footer="708" w:gutter="0"/></w:sectPr>`;
  return (
    `<?xml version="1.0" encoding="UTF-8" standalone="yes"?>` +
    `<w:document xmlns:w="${W_NS}"><w:body>${body.join("")}${sect}</w:body></w:document>`
  );
}

const STYLES_XML =
  `<?xml version="1.0" encoding="UTF-8" standalone="yes"?>` +
  `<w:styles xmlns:w="${W_NS}">` +
  `<w:docDefaults><w:rPrDefault><w:rPr><w:rFonts w:ascii="Liberation Serif" w:hAnsi="Liberation Serif"/>` +
  `<w:sz w:val="22"/></w:rPr></w:rPrDefault></w:docDefaults>` +
  `<w:style w:type="paragraph" w:default="1" w:styleId="Normal"><w:name w:val="Normal"/>` +
  `<w:pPr><w:spacing w:after="160"/></w:pPr></w:style>` +
  `<w:style w:type="paragraph" w:styleId="Heading1"><w:name w:val="heading 1"/><w:basedOn w:val="Normal"/>` +
  `<w:next w:val="Normal"/><w:pPr><w:keepNext/><w:outlineLvl w:val="0"/></w:pPr><w:rPr><w:b/><w:sz w:val="40"/></w:rPr></w:style>` +
  `<w:style w:type="paragraph" w:styleId="Heading2"><w:name w:val="heading 2"/><w:basedOn w:val="Normal"/>` +
  `<w:next w:val="Normal"/><w:pPr><w:keepNext/><w:outlineLvl w:val="1"/></w:pPr><w:rPr><w:b/><w:sz w:val="28"/></w:rPr></w:style>` +
  `</w:styles>`;

const CONTENT_TYPES_XML =
  `<?xml version="1.0" encoding="UTF-8" standalone="yes"?>` +
  `<Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types">` +
  `<Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/>` +
  `<Default Extension="xml" ContentType="application/xml"/>` +
  `<Override PartName="/word/document.xml" ContentType="application/vnd.openxmlformats-officedocument.wordprocessingml.document.main+xml"/>` +
  `<Override PartName="/word/styles.xml" ContentType="application/vnd.openxmlformats-officedocument.wordprocessingml.styles+xml"/>` +
  `<Override PartName="/docProps/core.xml" ContentType="application/vnd.openxmlformats-package.core-properties+xml"/>` +
  `</Types>`;

const ROOT_RELS_XML =
  `<?xml version="1.0" encoding="UTF-8" standalone="yes"?>` +
  `<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">` +
  `<Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/officeDocument" Target="word/document.xml"/>` +
  `<Relationship Id="rId2" Type="http://schemas.openxmlformats.org/package/2006/relationships/metadata/core-properties" Target="docProps/core.xml"/>` +
  `</Relationships>`;

const DOC_RELS_XML =
  `<?xml version="1.0" encoding="UTF-8" standalone="yes"?>` +
  `<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">` +
  `<Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/styles" Target="styles.xml"/>` +
  `</Relationships>`;

function coreXml(title: string): string {
  return (
    `<?xml version="1.0" encoding="UTF-8" standalone="yes"?>` +
    `<cp:coreProperties xmlns:cp="http://schemas.openxmlformats.org/package/2006/metadata/core-properties" ` +
    `xmlns:dc="http://purl.org/dc/elements/1.1/"><dc:title>${esc(title)}</dc:title></cp:coreProperties>`
  );
}

/** Builds a valid DOCX. `pages` explicit page breaks => the PDF has exactly `pages` pages. */
export function buildDocx(options: BuildDocxOptions = {}): Uint8Array {
  const opts: Required<BuildDocxOptions> = {
    pages: Math.max(1, Math.floor(options.pages ?? 1)),
    withTable: options.withTable ?? false,
    withHeading: options.withHeading ?? false,
    paragraphsPerPage: options.paragraphsPerPage ?? 3,
    title: options.title ?? "Converter test document",
  };
  const files: Zippable = {
    "[Content_Types].xml": strToU8(CONTENT_TYPES_XML),
    "_rels/.rels": strToU8(ROOT_RELS_XML),
    "word/document.xml": strToU8(documentXml(opts)),
    "word/styles.xml": strToU8(STYLES_XML),
    "word/_rels/document.xml.rels": strToU8(DOC_RELS_XML),
    "docProps/core.xml": strToU8(coreXml(opts.title)),
  };
  return zipSync(files, { level: 6, mtime: new Date("2024-01-01T00:00:00Z") });
}

/** Deterministic pseudo-random bytes (not a ZIP). */
export function buildRandomBytes(size = 4096, seed = 42): Uint8Array {
  const out = new Uint8Array(size);
  let x = seed >>> 0 || 1;
  for (let i = 0; i < size; i++) {
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    out[i] = x & 0xff;
  }
  return out;
}

/** A well-formed ZIP that is not a DOCX (no word/document.xml). */
export function buildZipWithoutDocument(): Uint8Array {
  return zipSync({
    "[Content_Types].xml": strToU8(CONTENT_TYPES_XML),
    "readme.txt": strToU8("This ZIP archive has no word/document.xml part."),
  });
}

/** A DOCX whose ZIP container is fine but whose word/document.xml is broken XML. */
export function buildDocxWithBrokenXml(): Uint8Array {
  return zipSync({
    "[Content_Types].xml": strToU8(CONTENT_TYPES_XML),
    "_rels/.rels": strToU8(ROOT_RELS_XML),
    "word/document.xml": strToU8(`<?xml version="1.0"?><w:document xmlns:w="${W_NS}"><w:body><w:p><w:r>`),
  });
}

// ---- ZIP bombs, generated at run time (never committed) --------------------------------------------------------

export interface DocxBombOptions {
  /** Size word/document.xml inflates to. Default 650 MiB (the size of the bomb that exhausted the converter). */
  inflatedBytes?: number;
  /** Write zip64 records (saturated 32-bit fields, zip64 extra fields, zip64 end record and locator). */
  zip64?: boolean;
  /**
   * Make the headers lie about word/document.xml's inflated size: "central" = only the central directory claims a
   * small size (the local header tells the truth); "both" = central directory and local header agree on the lie.
   */
  lie?: "central" | "both";
  /** The inflated size the lying headers claim. Default 50 × the compressed size, at most 64 MiB (inside both bounds). */
  claimed?: number;
}

const BOMB_PARAGRAPH = `<w:p><w:r><w:t>All work and no play makes Jack a dull boy.</w:t></w:r></w:p>`;

/**
 * A DOCX whose word/document.xml is one paragraph repeated to `inflatedBytes` (hundreds of MB) yet compresses about
 * 1000:1. Built cheaply: a 1 MiB run of paragraphs is deflated once with a full flush (byte-aligned, no reference to
 * earlier data), so its compressed bytes can simply be repeated; the CRC-32 is computed over the repeats.
 */
export function buildDocxBomb(options: DocxBombOptions = {}): Uint8Array {
  const target = options.inflatedBytes ?? 650 * 1024 * 1024;
  const head = strToU8(`<?xml version="1.0" encoding="UTF-8" standalone="yes"?><w:document xmlns:w="${W_NS}"><w:body>`);
  const tail = strToU8(`<w:sectPr><w:pgSz w:w="11906" w:h="16838"/></w:sectPr></w:body></w:document>`);
  const run = strToU8(BOMB_PARAGRAPH.repeat(Math.floor((1024 * 1024) / BOMB_PARAGRAPH.length)));
  const repeats = Math.max(1, Math.ceil((target - head.length - tail.length) / run.length));
  const full = { finishFlush: constants.Z_FULL_FLUSH, level: 9 };
  const runDeflated = deflateRawSync(run, full);
  const parts = [
    deflateRawSync(head, full),
    ...Array.from({ length: repeats }, () => runDeflated),
    deflateRawSync(tail, { level: 9 }),
  ];
  let crc = crc32(head);
  for (let i = 0; i < repeats; i++) crc = crc32(run, crc);
  crc = crc32(tail, crc);
  const document: RawZipEntry = {
    name: "word/document.xml",
    method: 8,
    crc,
    data: concat(parts),
    inflatedSize: head.length + repeats * run.length + tail.length,
  };
  const small = (name: string, text: string): RawZipEntry => {
    const bytes = strToU8(text);
    return { name, method: 8, crc: crc32(bytes), data: deflateRawSync(bytes), inflatedSize: bytes.length };
  };
  const entries = [small("[Content_Types].xml", CONTENT_TYPES_XML), small("_rels/.rels", ROOT_RELS_XML), document];
  const claimed = options.claimed ?? Math.min(document.data.length * 50, 64 * 1024 * 1024); // inside both bounds: under 100 MiB, 50:1 at most
  return writeZip(entries, {
    zip64: options.zip64,
    centralSize: options.lie ? { [document.name]: claimed } : {},
    localSize: options.lie === "both" ? { [document.name]: claimed } : {},
  });
}

/**
 * A DOCX whose word/document.xml's local header and central directory entry agree on `declared` bytes (default
 * 900,000: under the 1 MiB ratio grace, so the declared sizes pass every bound) while its deflate stream really
 * inflates to `inflatedBytes`: far more (a bomb whose headers lie) or fewer. The CRC-32 is that of the real data.
 */
export function buildLyingDocx(options: { inflatedBytes: number; declared?: number }): Uint8Array {
  const declared = options.declared ?? 900_000;
  const head = strToU8(`<?xml version="1.0" encoding="UTF-8" standalone="yes"?><w:document xmlns:w="${W_NS}"><w:body>`);
  const tail = strToU8(`</w:body></w:document>`);
  const xml = new Uint8Array(Math.max(options.inflatedBytes, head.length + tail.length));
  const paragraph = strToU8(BOMB_PARAGRAPH);
  xml.set(head, 0);
  let at = head.length;
  for (; at + paragraph.length <= xml.length - tail.length; at += paragraph.length) xml.set(paragraph, at);
  xml.fill(0x20, at, xml.length - tail.length); // spaces up to the tail, so the size is exact
  xml.set(tail, xml.length - tail.length);
  const document: RawZipEntry = {
    name: "word/document.xml",
    method: 8,
    crc: crc32(xml),
    data: deflateRawSync(xml, { level: 9 }),
    inflatedSize: xml.length,
  };
  const small = (name: string, text: string): RawZipEntry => {
    const bytes = strToU8(text);
    return { name, method: 8, crc: crc32(bytes), data: deflateRawSync(bytes), inflatedSize: bytes.length };
  };
  const entries = [small("[Content_Types].xml", CONTENT_TYPES_XML), small("_rels/.rels", ROOT_RELS_XML), document];
  return writeZip(entries, { centralSize: { [document.name]: declared }, localSize: { [document.name]: declared } });
}

export interface RawZipEntry {
  name: string;
  /** 0 stored, 8 deflated (`data` is then a raw deflate stream). */
  method: 0 | 8;
  crc: number;
  data: Uint8Array;
  inflatedSize: number;
}

export interface WriteZipOptions {
  zip64?: boolean;
  /** Inflated sizes the central directory should claim instead of the real ones, by entry name. */
  centralSize?: Record<string, number>;
  /** Inflated sizes the local headers should claim instead of the real ones, by entry name. */
  localSize?: Record<string, number>;
}

function concat(parts: readonly Uint8Array[]): Uint8Array {
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.length;
  }
  return out;
}

/** A ZIP written field by field (so tests can make it lie); with `zip64`, every size and offset goes in zip64 form. */
export function writeZip(entries: readonly RawZipEntry[], options: WriteZipOptions = {}): Uint8Array {
  const zip64 = options.zip64 ?? false;
  const parts: Uint8Array[] = [];
  let offset = 0;
  const push = (bytes: Uint8Array) => {
    parts.push(bytes);
    offset += bytes.length;
  };
  const central: Uint8Array[] = [];
  for (const e of entries) {
    const name = strToU8(e.name);
    const localInflated = options.localSize?.[e.name] ?? e.inflatedSize;
    const centralInflated = options.centralSize?.[e.name] ?? e.inflatedSize;
    const localOffset = offset;
    // local header
    const localExtra = zip64 ? new Uint8Array(20) : new Uint8Array(0);
    const lh = new Uint8Array(30 + name.length + localExtra.length);
    const l = new DataView(lh.buffer);
    l.setUint32(0, 0x04034b50, true);
    l.setUint16(4, zip64 ? 45 : 20, true);
    l.setUint16(6, 0x0800, true); // UTF-8 names
    l.setUint16(8, e.method, true);
    l.setUint32(14, e.crc, true);
    l.setUint32(18, zip64 ? 0xffffffff : e.data.length, true);
    l.setUint32(22, zip64 ? 0xffffffff : localInflated, true);
    l.setUint16(26, name.length, true);
    l.setUint16(28, localExtra.length, true);
    lh.set(name, 30);
    if (zip64) {
      const x = new DataView(lh.buffer, 30 + name.length);
      x.setUint16(0, 0x0001, true);
      x.setUint16(2, 16, true);
      x.setBigUint64(4, BigInt(localInflated), true);
      x.setBigUint64(12, BigInt(e.data.length), true);
    }
    push(lh);
    push(e.data);
    // central directory entry
    const ch = new Uint8Array(46 + name.length + (zip64 ? 28 : 0));
    const c = new DataView(ch.buffer);
    c.setUint32(0, 0x02014b50, true);
    c.setUint16(4, zip64 ? 45 : 20, true);
    c.setUint16(6, zip64 ? 45 : 20, true);
    c.setUint16(8, 0x0800, true);
    c.setUint16(10, e.method, true);
    c.setUint32(16, e.crc, true);
    c.setUint32(20, zip64 ? 0xffffffff : e.data.length, true);
    c.setUint32(24, zip64 ? 0xffffffff : centralInflated, true);
    c.setUint16(28, name.length, true);
    c.setUint16(30, zip64 ? 28 : 0, true);
    c.setUint32(42, zip64 ? 0xffffffff : localOffset, true);
    ch.set(name, 46);
    if (zip64) {
      const x = new DataView(ch.buffer, 46 + name.length);
      x.setUint16(0, 0x0001, true);
      x.setUint16(2, 24, true);
      x.setBigUint64(4, BigInt(centralInflated), true);
      x.setBigUint64(12, BigInt(e.data.length), true);
      x.setBigUint64(20, BigInt(localOffset), true);
    }
    central.push(ch);
  }
  const cdOffset = offset;
  for (const ch of central) push(ch);
  const cdSize = offset - cdOffset;
  if (zip64) {
    const record = new Uint8Array(56 + 20);
    const r = new DataView(record.buffer);
    r.setUint32(0, 0x06064b50, true);
    r.setBigUint64(4, 44n, true);
    r.setUint16(12, 45, true);
    r.setUint16(14, 45, true);
    r.setBigUint64(24, BigInt(entries.length), true);
    r.setBigUint64(32, BigInt(entries.length), true);
    r.setBigUint64(40, BigInt(cdSize), true);
    r.setBigUint64(48, BigInt(cdOffset), true);
    r.setUint32(56, 0x07064b50, true); // locator
    r.setBigUint64(64, BigInt(offset), true);
    r.setUint32(72, 1, true);
    push(record);
  }
  const eocd = new Uint8Array(22);
  const z = new DataView(eocd.buffer);
  z.setUint32(0, 0x06054b50, true);
  z.setUint16(8, zip64 ? 0xffff : entries.length, true);
  z.setUint16(10, zip64 ? 0xffff : entries.length, true);
  z.setUint32(12, zip64 ? 0xffffffff : cdSize, true);
  z.setUint32(16, zip64 ? 0xffffffff : cdOffset, true);
  push(eocd);
  return concat(parts);
}
