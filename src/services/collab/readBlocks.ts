/**
 * The Yjs → JSON direction of blocks.ts: the BlockNote blocks a shared document's `XmlFragment` holds, read from
 * y-prosemirror's layout described there (text runs with the same styles and link merged, as BlockNote does).
 */
import * as Y from "yjs";
import {
  CELL_LAYOUT_ATTRS,
  isObject,
  NO_CONTENT,
  type Block,
  type InlineContent,
  type Link,
  type StyledText,
  type Styles,
  type TableCell,
  type TableContent,
} from "./blocks";

function stylesOf(attrs: Record<string, unknown> | undefined): { styles: Styles; link?: string } {
  const styles: Styles = {};
  let link: string | undefined;
  for (const [k, v] of Object.entries(attrs ?? {})) {
    if (v === null || v === undefined) continue;
    if (k === "link") {
      link = isObject(v) && typeof v.href === "string" ? v.href : String(v);
    } else if (isObject(v) && "stringValue" in v) {
      styles[k] = String(v.stringValue);
    } else {
      styles[k] = true;
    }
  }
  return { styles, link };
}

const sameStyles = (a: Styles, b: Styles) => {
  const ka = Object.keys(a);
  return ka.length === Object.keys(b).length && ka.every((k) => a[k] === b[k]);
};

/** Adds text to `out`, merging with the previous piece when it has the same styles and link (BlockNote does the same). */
function addText(out: InlineContent[], text: string, styles: Styles, link: string | undefined) {
  const last = out[out.length - 1];
  if (link !== undefined) {
    if (last && last.type === "link" && (last as Link).href === link) {
      addText((last as Link).content as InlineContent[], text, styles, undefined);
      return;
    }
    out.push({ type: "link", href: link, content: [{ type: "text", text, styles }] });
    return;
  }
  if (last && last.type === "text" && sameStyles((last as StyledText).styles, styles)) {
    (last as StyledText).text += text;
    return;
  }
  out.push({ type: "text", text, styles });
}

function readInline(el: Y.XmlElement): InlineContent[] {
  const out: InlineContent[] = [];
  let lastLink: string | undefined;
  let lastStyles: Styles = {};
  for (const child of el.toArray()) {
    if (child instanceof Y.XmlText) {
      for (const op of child.toDelta() as { insert: unknown; attributes?: Record<string, unknown> }[]) {
        if (typeof op.insert !== "string") continue;
        const { styles, link } = stylesOf(op.attributes);
        addText(out, op.insert, styles, link);
        lastLink = link;
        lastStyles = styles;
      }
    } else if (child instanceof Y.XmlElement) {
      if (child.nodeName === "hardBreak") {
        addText(out, "\n", lastStyles, lastLink);
      } else {
        out.push({
          type: child.nodeName,
          props: child.getAttributes() as Record<string, unknown>,
          content: readInline(child),
        });
        lastLink = undefined;
        lastStyles = {};
      }
    }
  }
  return out;
}

function readTable(el: Y.XmlElement): TableContent {
  const rows: TableContent["rows"] = [];
  const widths: (number | null | undefined)[] = [];
  let headerRows = 0;
  let headerCols = Infinity;
  let anyWidth = false;
  el.toArray().forEach((rowEl, r) => {
    if (!(rowEl instanceof Y.XmlElement)) return;
    const cells: TableCell[] = [];
    let col = 0;
    let allHeader = true;
    let leadingHeaders = 0;
    let stillLeading = true;
    for (const cellEl of rowEl.toArray()) {
      if (!(cellEl instanceof Y.XmlElement)) continue;
      const attrs = { ...(cellEl.getAttributes() as Record<string, unknown>) };
      const colspan = typeof attrs.colspan === "number" ? attrs.colspan : 1;
      const rowspan = typeof attrs.rowspan === "number" ? attrs.rowspan : 1;
      const colwidth = Array.isArray(attrs.colwidth) ? (attrs.colwidth as (number | null)[]) : null;
      for (const k of CELL_LAYOUT_ATTRS) delete attrs[k];
      for (let i = 0; i < colspan; i++) {
        const w = colwidth?.[i];
        if (typeof w === "number") anyWidth = true;
        if (r === 0 || widths[col + i] === undefined)
          widths[col + i] = typeof w === "number" ? w : (widths[col + i] ?? undefined);
      }
      col += colspan;
      const header = cellEl.nodeName === "tableHeader";
      if (!header) allHeader = false;
      if (header && stillLeading) leadingHeaders++;
      else stillLeading = false;
      const para = cellEl.toArray().find((x): x is Y.XmlElement => x instanceof Y.XmlElement);
      const props: Record<string, unknown> = { ...attrs };
      if (colspan !== 1) props.colspan = colspan;
      if (rowspan !== 1) props.rowspan = rowspan;
      cells.push({ type: "tableCell", props, content: para ? readInline(para) : [] });
    }
    if (allHeader && headerRows === r && cells.length) headerRows++;
    else headerCols = Math.min(headerCols, leadingHeaders);
    rows.push({ cells });
  });
  // Unset widths are null (what BlockNote's `undefined` becomes in JSON).
  const table: TableContent = {
    type: "tableContent",
    columnWidths: widths.map((w) => (anyWidth ? (w ?? null) : null)),
    rows,
  };
  if (headerRows > 0) table.headerRows = headerRows;
  if (headerCols !== Infinity && headerCols > 0) table.headerCols = headerCols;
  return table;
}

function readContainer(container: Y.XmlElement): Block | null {
  const attrs = container.getAttributes() as Record<string, unknown>;
  if (container.nodeName !== "blockContainer") {
    // A structural block without a content node (BlockNote's column layouts): its children are blocks.
    const { id, ...props } = attrs;
    return {
      id: String(id ?? ""),
      type: container.nodeName,
      props,
      children: container.toArray().flatMap((c) => (c instanceof Y.XmlElement ? readGroupOrContainer(c) : [])),
    };
  }
  const elements = container.toArray().filter((c): c is Y.XmlElement => c instanceof Y.XmlElement);
  const contentEl = elements.find((e) => e.nodeName !== "blockGroup");
  const group = elements.find((e) => e.nodeName === "blockGroup");
  if (!contentEl) return null;
  const type = contentEl.nodeName;
  // Members in BlockNote's order: id, type, props, content, children.
  const content = type === "table" ? readTable(contentEl) : NO_CONTENT.has(type) ? undefined : readInline(contentEl);
  return {
    id: String(attrs.id ?? ""),
    type,
    props: { ...(contentEl.getAttributes() as Record<string, unknown>) },
    ...(content !== undefined && { content }),
    children: group ? readGroup(group) : [],
  };
}

function readGroupOrContainer(el: Y.XmlElement): Block[] {
  if (el.nodeName === "blockGroup") return readGroup(el);
  const b = readContainer(el);
  return b ? [b] : [];
}

function readGroup(group: Y.XmlElement): Block[] {
  const out: Block[] = [];
  for (const child of group.toArray()) {
    if (!(child instanceof Y.XmlElement)) continue;
    const b = readContainer(child);
    if (b) out.push(b);
  }
  return out;
}

/** The blocks `fragment` holds, as BlockNote JSON. */
export function readBlocks(fragment: Y.XmlFragment): Block[] {
  const out: Block[] = [];
  for (const child of fragment.toArray()) {
    if (child instanceof Y.XmlElement) out.push(...readGroupOrContainer(child));
  }
  return out;
}
