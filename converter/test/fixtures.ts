// Programmatic DOCX fixtures (a DOCX is a ZIP of WordprocessingML parts).
// Reused by the Worker tests and the benchmarks: keep the exports stable.
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

function documentXml(opts: Required<BuildDocxOptions>): string {
  const body: string[] = [];
  for (let page = 1; page <= opts.pages; page++) {
    if (page === 1 && opts.withHeading) body.push(para(opts.title, "Heading1"));
    if (page === 1 && opts.withTable) body.push(table(6, 4));
    body.push(para(`Page ${page} of ${opts.pages}`, "Heading2"));
    for (let i = 0; i < opts.paragraphsPerPage; i++) body.push(para(LOREM));
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
