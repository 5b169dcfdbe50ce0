/**
 * Markdown ⇄ BlockNote blocks (docs/api-guide.md › Markdown import and export), through remark's syntax tree
 * (mdast) with GitHub Flavored Markdown: no HTML, no DOM, nothing here touches storage.
 *
 *   Markdown                    block
 *   # … ###### heading          heading { level }
 *   paragraph                   paragraph (an image alone in its paragraph: image { url, caption })
 *   - item / 1. item            bulletListItem / numberedListItem, nested lists as children
 *   - [ ] / - [x] item          checkListItem { checked }
 *   > quote                     quote (one per paragraph of the quote)
 *   ``` fenced code             codeBlock { language }
 *   GFM table                   table (first row the header row)
 *   ---                         divider
 *   **b** *i* ~~s~~ `c` [l](u)  bold, italic, strike, code styles; links; a hard break is "\n" in the text
 *
 * Markdown → blocks → Markdown is stable for these constructs (test/markdown.test.ts). Blocks Markdown cannot say
 * (colours, alignment, underline, empty paragraphs, a non-list block's children indentation) lose that on export.
 */
import type { Blockquote, Code, Heading, Image, List, ListItem, Paragraph, PhrasingContent, Root, RootContent, Table, TableCell, TableRow } from "mdast";
import remarkGfm from "remark-gfm";
import remarkParse from "remark-parse";
import remarkStringify from "remark-stringify";
import { unified } from "unified";
import type { Block, InlineContent, Link, StyledText, TableContent } from "../collab/blocks";

type Styles = Record<string, string | boolean>;

const DEFAULT_PROPS = { textColor: "default", backgroundColor: "default", textAlignment: "left" };

const newBlockId = () => crypto.randomUUID();

function block(type: string, props: Record<string, unknown>, content?: Block["content"], children: Block[] = []): Block {
  return { id: newBlockId(), type, props, ...(content !== undefined && { content }), children };
}

// ───────────────────────────── Markdown → blocks ─────────────────────────────

const parser = unified().use(remarkParse).use(remarkGfm);

/** The blocks of a Markdown text. */
export function markdownToBlocks(markdown: string): Block[] {
  const tree = parser.parse(markdown) as Root;
  return flowToBlocks(tree.children);
}

function flowToBlocks(nodes: readonly RootContent[]): Block[] {
  const out: Block[] = [];
  for (const node of nodes) out.push(...nodeToBlocks(node));
  return out;
}

function nodeToBlocks(node: RootContent): Block[] {
  switch (node.type) {
    case "heading":
      return [block("heading", { ...DEFAULT_PROPS, level: (node as Heading).depth, isToggleable: false }, inlineOf(node.children))];
    case "paragraph":
      return paragraphBlocks(node as Paragraph);
    case "list":
      return listBlocks(node as List);
    case "blockquote":
      return quoteBlocks(node as Blockquote);
    case "code": {
      const code = node as Code;
      return [block("codeBlock", { language: code.lang ?? "" }, code.value ? [text(code.value, {})] : [])];
    }
    case "table":
      return [tableBlock(node as Table)];
    case "thematicBreak":
      return [block("divider", {})];
    case "html":
      return node.value.trim() ? [block("paragraph", { ...DEFAULT_PROPS }, [text(node.value, {})])] : [];
    default:
      // Definitions, footnotes and anything else GFM may add: their text, if they have any.
      return "children" in node && Array.isArray(node.children) ? flowToBlocks(node.children as RootContent[]) : [];
  }
}

/** A paragraph; an image on its own (or images between text) becomes an image block in reading order. */
function paragraphBlocks(p: Paragraph): Block[] {
  const out: Block[] = [];
  let run: PhrasingContent[] = [];
  const flush = () => {
    const content = inlineOf(run);
    if (content.length && !content.every((c) => c.type === "text" && (c as StyledText).text.trim() === "")) out.push(block("paragraph", { ...DEFAULT_PROPS }, content));
    run = [];
  };
  for (const child of p.children) {
    if (child.type === "image") {
      flush();
      out.push(imageBlock(child));
    } else run.push(child);
  }
  flush();
  return out;
}

function imageBlock(img: Image): Block {
  return block("image", { textAlignment: "left", backgroundColor: "default", name: "", url: img.url, caption: img.alt ?? "", showPreview: true }, undefined);
}

function listBlocks(list: List): Block[] {
  return list.children.map((item: ListItem, index) => {
    const [first, ...rest] = item.children;
    const content = first?.type === "paragraph" ? inlineOf(first.children) : [];
    const children = flowToBlocks(first?.type === "paragraph" ? rest : item.children);
    if (typeof item.checked === "boolean") return block("checkListItem", { ...DEFAULT_PROPS, checked: item.checked }, content, children);
    if (list.ordered) {
      const props: Record<string, unknown> = { ...DEFAULT_PROPS };
      if (index === 0 && typeof list.start === "number" && list.start !== 1) props.start = list.start;
      return block("numberedListItem", props, content, children);
    }
    return block("bulletListItem", { ...DEFAULT_PROPS }, content, children);
  });
}

function quoteBlocks(q: Blockquote): Block[] {
  const out: Block[] = [];
  for (const child of q.children) {
    if (child.type === "paragraph") out.push(block("quote", { textColor: "default", backgroundColor: "default" }, inlineOf(child.children)));
    else out.push(...nodeToBlocks(child));
  }
  return out;
}

function tableBlock(t: Table): Block {
  const content: TableContent = {
    type: "tableContent",
    columnWidths: (t.children[0]?.children ?? []).map(() => undefined),
    headerRows: 1,
    rows: t.children.map((row: TableRow) => ({
      cells: row.children.map((cell: TableCell) => ({
        type: "tableCell" as const,
        props: { backgroundColor: "default", textColor: "default", textAlignment: "left", colspan: 1, rowspan: 1 },
        content: inlineOf(cell.children),
      })),
    })),
  };
  return block("table", { textColor: "default" }, content);
}

/** A text run; its styles in a fixed key order, so equal styles are equal JSON however the marks were nested. */
function text(value: string, styles: Styles): StyledText {
  const sorted: Styles = {};
  for (const k of Object.keys(styles).sort()) sorted[k] = styles[k]!;
  return { type: "text", text: value, styles: sorted };
}

function sameStyles(a: Styles, b: Styles) {
  const ka = Object.keys(a);
  return ka.length === Object.keys(b).length && ka.every((k) => a[k] === b[k]);
}

/** Inline content with neighbouring runs of the same styles merged (what BlockNote itself stores). */
function inlineOf(nodes: readonly PhrasingContent[], base: Styles = {}): InlineContent[] {
  const out: InlineContent[] = [];
  const push = (item: StyledText | Link) => {
    const last = out[out.length - 1];
    if (item.type === "text") {
      if (item.text === "") return;
      if (last?.type === "text" && sameStyles((last as StyledText).styles, item.styles)) {
        (last as StyledText).text += item.text;
        return;
      }
    }
    out.push(item);
  };
  const walk = (list: readonly PhrasingContent[], styles: Styles) => {
    for (const n of list) {
      switch (n.type) {
        case "text":
          push(text(n.value, styles));
          break;
        case "strong":
          walk(n.children, { ...styles, bold: true });
          break;
        case "emphasis":
          walk(n.children, { ...styles, italic: true });
          break;
        case "delete":
          walk(n.children, { ...styles, strike: true });
          break;
        case "inlineCode":
          push(text(n.value, { ...styles, code: true }));
          break;
        case "break":
          push(text("\n", styles));
          break;
        case "link": {
          // The link's text carries the styles around it, merged like any other run.
          const inner = inlineOf(n.children, styles).filter((c): c is StyledText => c.type === "text");
          // `[]()` says nothing; `[](url)` shows its URL.
          if (inner.length === 0 && n.url === "") break;
          push({ type: "link", href: n.url, content: inner.length ? inner : [text(n.url, styles)] });
          break;
        }
        case "image":
          // An image where blocks cannot go (a list item's or heading's text, a table cell): a link to it.
          if (n.url) push({ type: "link", href: n.url, content: [text(n.alt || n.url, styles)] });
          else if (n.alt) push(text(n.alt, styles));
          break;
        case "html":
          push(text(n.value, styles));
          break;
        default:
          if ("children" in n && Array.isArray(n.children)) walk(n.children as PhrasingContent[], styles);
          else if ("value" in n && typeof n.value === "string") push(text(n.value, styles));
      }
    }
  };
  walk(nodes, base);
  return out;
}

// ───────────────────────────── blocks → Markdown ─────────────────────────────

const serializer = unified().use(remarkGfm).use(remarkStringify, {
  bullet: "-",
  emphasis: "*",
  strong: "*",
  fence: "`",
  fences: true,
  rule: "-",
  listItemIndent: "one",
  incrementListMarker: true,
});

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);

/** Markdown of any stored content: a block array (what the editor stores); anything else gives an empty text. */
export function blocksToMarkdown(blocks: unknown): string {
  const list = Array.isArray(blocks) ? blocks.filter(isObject) : [];
  const root: Root = { type: "root", children: blocksToFlow(list as unknown as Block[]) };
  const md = serializer.stringify(root);
  return md === "\n" ? "" : md;
}

type Flow = RootContent;
type ListKind = "bullet" | "ordered" | "check";

function listKind(type: string): ListKind | null {
  if (type === "bulletListItem" || type === "toggleListItem") return "bullet";
  if (type === "numberedListItem") return "ordered";
  if (type === "checkListItem") return "check";
  return null;
}

function blocksToFlow(blocks: readonly Block[]): Flow[] {
  const out: Flow[] = [];
  let list: List | null = null;
  let kind: ListKind | null = null;
  for (const b of blocks) {
    const k = listKind(String(b.type));
    if (k) {
      const start = k === "ordered" && typeof b.props?.start === "number" ? (b.props.start as number) : undefined;
      // A numbered item with its own start begins a new list (it was one when imported).
      if (!list || kind !== k || start !== undefined) {
        list = { type: "list", ordered: k === "ordered", spread: false, ...(start !== undefined && { start }), children: [] };
        kind = k;
        out.push(list);
      }
      const content = phrasingOf(b.content);
      const item: ListItem = {
        type: "listItem",
        spread: false,
        checked: k === "check" ? b.props?.checked === true : null,
        // An item with no text of its own holds its nested blocks directly ("1. - a"), not an empty first paragraph.
        children: [...(content.length ? [{ type: "paragraph" as const, children: content }] : []), ...(blocksToFlow(childrenOf(b)) as ListItem["children"])],
      };
      list.children.push(item);
      continue;
    }
    list = null;
    kind = null;
    out.push(...blockToFlow(b), ...blocksToFlow(childrenOf(b)));
  }
  return out;
}

function childrenOf(b: Block): Block[] {
  return Array.isArray(b.children) ? (b.children.filter(isObject) as unknown as Block[]) : [];
}

function blockToFlow(b: Block): Flow[] {
  const props = isObject(b.props) ? b.props : {};
  switch (b.type) {
    case "heading": {
      const level = Math.min(6, Math.max(1, Number(props.level) || 1)) as Heading["depth"];
      return [{ type: "heading", depth: level, children: phrasingOf(b.content) }];
    }
    case "quote":
      return [{ type: "blockquote", children: [{ type: "paragraph", children: phrasingOf(b.content) }] }];
    case "codeBlock": {
      const lang = typeof props.language === "string" && props.language && props.language !== "text" ? props.language : null;
      return [{ type: "code", lang, value: plainText(b.content) }];
    }
    case "table":
      return tableFlow(b.content);
    case "divider":
      return [{ type: "thematicBreak" }];
    case "image": {
      const url = typeof props.url === "string" ? props.url : "";
      if (!url) return [];
      return [{ type: "paragraph", children: [{ type: "image", url, alt: typeof props.caption === "string" ? props.caption : "" }] }];
    }
    case "video":
    case "audio":
    case "file": {
      const url = typeof props.url === "string" ? props.url : "";
      if (!url) return [];
      const label = (typeof props.name === "string" && props.name) || (typeof props.caption === "string" && props.caption) || url;
      return [{ type: "paragraph", children: [{ type: "link", url, children: [{ type: "text", value: label }] }] }];
    }
    case "pageBreak":
      return [];
    default: {
      const children = phrasingOf(b.content);
      return children.length ? [{ type: "paragraph", children }] : [];
    }
  }
}

function tableFlow(content: unknown): Flow[] {
  if (!isObject(content) || !Array.isArray(content.rows)) return [];
  const rows = (content.rows as unknown[]).filter(isObject).map((r) => (Array.isArray(r.cells) ? r.cells : []));
  const width = Math.max(0, ...rows.map((r) => r.length));
  if (width === 0) return [];
  const table: Table = {
    type: "table",
    align: Array.from({ length: width }, () => null),
    children: rows.map((cells) => ({
      type: "tableRow",
      children: Array.from({ length: width }, (_, i) => {
        const cell = cells[i];
        const inline = isObject(cell) && cell.type === "tableCell" ? cell.content : cell;
        return { type: "tableCell", children: phrasingOf(inline, true) } satisfies TableCell;
      }),
    })),
  };
  return [table];
}

/** Inline content as text only (code blocks). */
function plainText(content: unknown): string {
  if (typeof content === "string") return content;
  if (!Array.isArray(content)) return "";
  return content
    .map((c) => {
      if (typeof c === "string") return c;
      if (!isObject(c)) return "";
      if (typeof c.text === "string") return c.text;
      return plainText(c.content);
    })
    .join("");
}

function inlineItems(content: unknown): unknown[] {
  if (typeof content === "string") return [{ type: "text", text: content, styles: {} }];
  return Array.isArray(content) ? content : [];
}

/** One piece of inline content before marks are nested: a text run, a link or a line break. */
interface Piece {
  node: PhrasingContent;
  styles: Styles;
}

const MARKS = ["bold", "italic", "strike"] as const;

function markNode(mark: (typeof MARKS)[number], children: PhrasingContent[]): PhrasingContent {
  if (mark === "bold") return { type: "strong", children };
  if (mark === "italic") return { type: "emphasis", children };
  return { type: "delete", children };
}

/**
 * Nests marks over neighbouring pieces that share them (`**a *b***`, never `**a****b**`): at each piece the mark
 * held by the longest stretch of pieces from there wraps that whole stretch, and the rest is nested inside.
 */
function nestMarks(pieces: readonly Piece[]): PhrasingContent[] {
  const out: PhrasingContent[] = [];
  let i = 0;
  while (i < pieces.length) {
    const piece = pieces[i]!;
    let best: (typeof MARKS)[number] | null = null;
    let bestEnd = i;
    for (const m of MARKS) {
      if (piece.styles[m] !== true) continue;
      let end = i;
      while (end + 1 < pieces.length && pieces[end + 1]!.styles[m] === true) end++;
      if (best === null || end > bestEnd) {
        best = m;
        bestEnd = end;
      }
    }
    if (best === null) {
      out.push(piece.node);
      i++;
      continue;
    }
    const mark = best;
    const inner = pieces.slice(i, bestEnd + 1).map((p) => ({ node: p.node, styles: { ...p.styles, [mark]: false } }));
    out.push(markNode(mark, nestMarks(inner)));
    i = bestEnd + 1;
  }
  return out;
}

function textPieces(value: string, styles: Styles, inTable: boolean): Piece[] {
  const parts: Piece[] = [];
  // A line break cannot live in a table cell: it becomes a space.
  const lines = (inTable ? value.replace(/\n/g, " ") : value).split("\n");
  lines.forEach((line, i) => {
    if (i > 0) parts.push({ node: { type: "break" }, styles: {} });
    if (line === "") return;
    parts.push({ node: styles.code === true ? { type: "inlineCode", value: line } : { type: "text", value: line }, styles });
  });
  return parts;
}

function piecesOf(content: unknown, inTable: boolean): Piece[] {
  const out: Piece[] = [];
  for (const item of inlineItems(content)) {
    if (typeof item === "string") {
      out.push(...textPieces(item, {}, inTable));
      continue;
    }
    if (!isObject(item)) continue;
    if (item.type === "text" && typeof item.text === "string") {
      out.push(...textPieces(item.text, isObject(item.styles) ? (item.styles as Styles) : {}, inTable));
    } else if (item.type === "link" && typeof item.href === "string") {
      const children = nestMarks(piecesOf(item.content, inTable).filter((p) => p.node.type !== "break"));
      if (children.length === 0 && item.href === "") continue;
      out.push({ node: { type: "link", url: item.href, children: children.length ? (children as never) : [{ type: "text", value: item.href }] }, styles: {} });
    } else if (item.content !== undefined) {
      // A custom inline (a mention, a reference): its own text.
      out.push(...piecesOf(item.content, inTable));
    }
  }
  return out;
}

function phrasingOf(content: unknown, inTable = false): PhrasingContent[] {
  return nestMarks(piecesOf(content, inTable));
}
