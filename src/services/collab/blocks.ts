/**
 * BlockNote block JSON ↔ the Yjs `XmlFragment` BlockNote's collaboration binding edits (docs/api-guide.md › Automations, published portals, collaborative editing), over plain Yjs
 * types (no DOM, no ProseMirror). The layout is y-prosemirror's mapping of BlockNote's ProseMirror schema:
 *
 *   XmlFragment "document-store"
 *     XmlElement "blockGroup"
 *       XmlElement "blockContainer" { id }
 *         XmlElement <block type> { ...props }            paragraph, heading, bulletListItem, codeBlock, image, …
 *           XmlText  text with marks as format attributes  { bold: {}, textColor: { stringValue }, link: { href } }
 *           XmlElement "hardBreak"                          a "\n" inside inline content (not in code blocks)
 *         XmlElement "blockGroup"                          optional: the block's children
 *
 * A table's content node holds `tableRow` > `tableCell`|`tableHeader` { colspan, rowspan, colwidth, ...props } >
 * `tableParagraph` > inline content. A node name is the element's nodeName, node attributes are element attributes
 * (y-prosemirror omits null values), and a mark is a format attribute named after the mark holding the mark's attrs
 * (boolean styles `{}`, string styles `{ stringValue }`, links `{ href, … }`).
 *
 * This file holds the JSON model and the JSON → Yjs direction (`writeBlocks`); readBlocks.ts reads it back.
 */
import * as Y from "yjs";

export const FRAGMENT_NAME = "document-store";

export type Styles = Record<string, string | boolean>;
export interface StyledText {
  type: "text";
  text: string;
  styles: Styles;
}
export interface Link {
  type: "link";
  href: string;
  content: StyledText[];
}
export interface CustomInline {
  type: string;
  props?: Record<string, unknown>;
  content?: InlineContent[];
}
export type InlineContent = StyledText | Link | CustomInline;
export interface TableCell {
  type: "tableCell";
  props: Record<string, unknown>;
  content: InlineContent[];
}
export interface TableContent {
  type: "tableContent";
  columnWidths?: (number | null | undefined)[];
  headerRows?: number;
  headerCols?: number;
  rows: { cells: (InlineContent[] | TableCell)[] }[];
}
export interface Block {
  id: string;
  type: string;
  props: Record<string, unknown>;
  content?: InlineContent[] | TableContent;
  children: Block[];
}

/** Block types whose content node carries no inline content (BlockNote's `content: "none"`). */
export const NO_CONTENT = new Set(["image", "video", "audio", "file", "pageBreak", "divider"]);
/** Block types whose text is code: a "\n" stays in the text instead of becoming a hardBreak node. */
const CODE = new Set(["codeBlock"]);
/** Cell node attributes that belong to the table layout, not to the cell's props. */
export const CELL_LAYOUT_ATTRS = new Set(["colspan", "rowspan", "colwidth"]);

// ───────────────────────────── JSON shape ─────────────────────────────

export const isObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === "object" && v !== null && !Array.isArray(v);

function isInline(v: unknown): boolean {
  if (typeof v === "string") return true;
  if (!isObject(v) || typeof v.type !== "string") return false;
  if (v.type === "text") return typeof v.text === "string" && (v.styles === undefined || isObject(v.styles));
  if (v.type === "link")
    return (
      typeof v.href === "string" &&
      (typeof v.content === "string" || (Array.isArray(v.content) && v.content.every(isInline)))
    );
  return v.props === undefined || isObject(v.props);
}

function isBlock(v: unknown, depth: number): boolean {
  if (!isObject(v) || typeof v.type !== "string" || v.type.length === 0 || depth > 64) return false;
  if (v.id !== undefined && typeof v.id !== "string") return false;
  if (v.props !== undefined && !isObject(v.props)) return false;
  if (v.children !== undefined && !(Array.isArray(v.children) && v.children.every((c) => isBlock(c, depth + 1))))
    return false;
  const c = v.content;
  if (c === undefined || typeof c === "string") return true;
  if (Array.isArray(c)) return c.every(isInline);
  if (isObject(c) && c.type === "tableContent" && Array.isArray(c.rows)) {
    return c.rows.every(
      (r) =>
        isObject(r) &&
        Array.isArray(r.cells) &&
        r.cells.every((cell) =>
          Array.isArray(cell) ? cell.every(isInline) : isObject(cell) || typeof cell === "string",
        ),
    );
  }
  return false;
}

/** True when `value` has BlockNote's block shape, so it can live in (and come back out of) the shared document. */
export function isBlockArray(value: unknown): value is Block[] {
  return Array.isArray(value) && value.every((b) => isBlock(b, 0));
}

// ───────────────────────────── JSON → Yjs ─────────────────────────────

let generated = 0;
function generateId() {
  generated += 1;
  return `${Date.now().toString(36)}-${generated.toString(36)}-${Math.random().toString(36).slice(2, 8)}`;
}

function markAttrs(styles: Styles | undefined, link?: string): Record<string, unknown> | undefined {
  const attrs: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(styles ?? {})) {
    if (v === false || v === null || v === undefined) continue;
    attrs[k] = v === true ? {} : { stringValue: v };
  }
  if (link !== undefined) attrs.link = { href: link };
  return Object.keys(attrs).length ? attrs : undefined;
}

type InlineItem = { text: string; attrs: Record<string, unknown> | undefined } | { node: Y.XmlElement };

function flattenInline(content: unknown, code: boolean, link: string | undefined, out: InlineItem[]) {
  const items = typeof content === "string" ? [content] : Array.isArray(content) ? content : [];
  for (const item of items) {
    if (typeof item === "string") {
      pushText(item, undefined, link, code, out);
    } else if (item.type === "text") {
      pushText(item.text, item.styles, link, code, out);
    } else if (item.type === "link") {
      flattenInline(item.content, code, item.href, out);
    } else {
      // Custom inline content (mentions and the like): an element with its props as attributes.
      const el = new Y.XmlElement(item.type);
      setAttrs(el, item.props);
      const inner: InlineItem[] = [];
      flattenInline(item.content, code, undefined, inner);
      appendInline(el, inner);
      out.push({ node: el });
    }
  }
}

function pushText(
  text: string,
  styles: Styles | undefined,
  link: string | undefined,
  code: boolean,
  out: InlineItem[],
) {
  const attrs = markAttrs(styles, link);
  if (code) {
    if (text) out.push({ text, attrs });
    return;
  }
  for (const part of text.split(/(\n)/)) {
    if (part === "\n") out.push({ node: new Y.XmlElement("hardBreak") });
    else if (part) out.push({ text: part, attrs });
  }
}

/** Runs of text become one XmlText each (formatted inserts), elements go between them: y-prosemirror's grouping. */
function appendInline(parent: Y.XmlElement, items: InlineItem[]) {
  const children: (Y.XmlText | Y.XmlElement)[] = [];
  let run: Y.XmlText | null = null;
  const pending: { text: string; attrs: Record<string, unknown> | undefined }[][] = [];
  for (const item of items) {
    if ("node" in item) {
      run = null;
      children.push(item.node);
    } else {
      if (!run) {
        run = new Y.XmlText();
        children.push(run);
        pending.push([]);
      }
      pending[pending.length - 1]!.push(item);
    }
  }
  parent.insert(0, children);
  // Texts are filled after they are integrated into the document (prelim XmlText keeps no formatting).
  let p = 0;
  for (const child of children) {
    if (child instanceof Y.XmlText) {
      let at = 0;
      for (const piece of pending[p++]!) {
        child.insert(at, piece.text, piece.attrs ?? {});
        at += piece.text.length;
      }
    }
  }
}

function setAttrs(el: Y.XmlElement, attrs: Record<string, unknown> | undefined) {
  for (const [k, v] of Object.entries(attrs ?? {})) {
    if (v === null || v === undefined) continue;
    el.setAttribute(k, v as string);
  }
}

function tableToElement(
  type: string,
  props: Record<string, unknown> | undefined,
  table: TableContent,
): { el: Y.XmlElement; fill: () => void } {
  const el = new Y.XmlElement(type);
  setAttrs(el, props);
  const widths = table.columnWidths ?? [];
  const fills: (() => void)[] = [];
  const rows = table.rows.map((row, r) => {
    const rowEl = new Y.XmlElement("tableRow");
    let col = 0;
    const cells = row.cells.map((cell, c) => {
      const isCell =
        !Array.isArray(cell) && typeof cell === "object" && cell !== null && (cell as TableCell).type === "tableCell";
      const cellProps = isCell ? { ...(cell as TableCell).props } : {};
      const content = isCell ? (cell as TableCell).content : (cell as unknown as InlineContent[] | string);
      const header = r < (table.headerRows ?? 0) || c < (table.headerCols ?? 0);
      const cellEl = new Y.XmlElement(header ? "tableHeader" : "tableCell");
      const colspan = typeof cellProps.colspan === "number" ? cellProps.colspan : 1;
      const rowspan = typeof cellProps.rowspan === "number" ? cellProps.rowspan : 1;
      delete cellProps.colspan;
      delete cellProps.rowspan;
      cellEl.setAttribute("colspan", colspan as unknown as string);
      cellEl.setAttribute("rowspan", rowspan as unknown as string);
      const span = widths.slice(col, col + colspan);
      col += colspan;
      if (span.some((w) => typeof w === "number"))
        cellEl.setAttribute("colwidth", span.map((w) => w ?? null) as unknown as string);
      setAttrs(cellEl, cellProps);
      const para = new Y.XmlElement("tableParagraph");
      cellEl.insert(0, [para]);
      const items: InlineItem[] = [];
      flattenInline(content, false, undefined, items);
      fills.push(() => appendInline(para, items));
      return cellEl;
    });
    rowEl.insert(0, cells);
    return rowEl;
  });
  el.insert(0, rows);
  return { el, fill: () => fills.forEach((f) => f()) };
}

function blockToContainer(block: Block, fills: (() => void)[]): Y.XmlElement {
  const container = new Y.XmlElement("blockContainer");
  container.setAttribute("id", block.id || generateId());
  const parts: Y.XmlElement[] = [];
  const content = block.content as unknown;
  if (
    content &&
    typeof content === "object" &&
    !Array.isArray(content) &&
    (content as TableContent).type === "tableContent"
  ) {
    const { el, fill } = tableToElement(block.type, block.props, content as TableContent);
    parts.push(el);
    fills.push(fill);
  } else {
    const el = new Y.XmlElement(block.type);
    setAttrs(el, block.props);
    parts.push(el);
    if (content !== undefined && !NO_CONTENT.has(block.type)) {
      const items: InlineItem[] = [];
      flattenInline(content, CODE.has(block.type), undefined, items);
      fills.push(() => appendInline(el, items));
    }
  }
  if (block.children?.length) parts.push(blocksToGroup(block.children, fills));
  container.insert(0, parts);
  return container;
}

function blocksToGroup(blocks: Block[], fills: (() => void)[]): Y.XmlElement {
  const group = new Y.XmlElement("blockGroup");
  group.insert(
    0,
    blocks.map((b) => blockToContainer(b, fills)),
  );
  return group;
}

/**
 * Replaces everything in `fragment` with `blocks`, inside one transaction (the caller's, when it opened one).
 * Inline text is inserted after its element is part of the document, because a preliminary XmlText drops formats.
 */
export function writeBlocks(fragment: Y.XmlFragment, blocks: Block[]) {
  const doc = fragment.doc;
  const run = () => {
    if (fragment.length) fragment.delete(0, fragment.length);
    if (blocks.length === 0) return;
    const fills: (() => void)[] = [];
    fragment.insert(0, [blocksToGroup(blocks, fills)]);
    for (const fill of fills) fill();
  };
  if (doc) doc.transact(run);
  else run();
}
