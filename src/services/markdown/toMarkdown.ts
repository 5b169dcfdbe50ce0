/**
 * BlockNote blocks → Markdown (docs/api-guide.md › Markdown import and export): the way back of ./convert.ts,
 * whose header lists the constructs each side maps; blocks Markdown cannot say lose what it cannot say.
 */
import type { Heading, List, ListItem, PhrasingContent, Root, RootContent, Table, TableCell } from "mdast";
import remarkGfm from "remark-gfm";
import remarkStringify from "remark-stringify";
import { unified } from "unified";
import { MAX_BLOCK_DEPTH } from "../../lib/blockDepth";
import type { Block } from "../collab/blocks";

type Styles = Record<string, string | boolean>;

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

/**
 * Markdown of any stored content: a block array (what the editor stores); anything else gives an empty text.
 * Content is written at most MAX_BLOCK_DEPTH deep (docs/api-guide.md › Limits); content stored deeper before that
 * bound existed is written with everything below its last level at that level, in reading order (no text is lost,
 * and neither this conversion nor remark-stringify, which recurses, meets a deeper tree).
 */
export function blocksToMarkdown(blocks: unknown): string {
  const list = Array.isArray(blocks) ? blocks.filter(isObject) : [];
  const root: Root = { type: "root", children: blocksToFlow(list as unknown as Block[], 1) };
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

/** Blocks at block depth `depth` (1: the top level) as Markdown flow; at the last level their descendants join them. */
function blocksToFlow(given: readonly Block[], depth: number): Flow[] {
  const last = depth >= MAX_BLOCK_DEPTH;
  const blocks = last ? flatten(given) : given;
  const nested = (b: Block) => (last ? [] : blocksToFlow(childrenOf(b), depth + 1));
  const out: Flow[] = [];
  let list: List | null = null;
  let kind: ListKind | null = null;
  for (const b of blocks) {
    const k = listKind(String(b.type));
    if (k) {
      const start = k === "ordered" && typeof b.props?.start === "number" ? (b.props.start as number) : undefined;
      // A numbered item with its own start begins a new list (it was one when imported).
      if (!list || kind !== k || start !== undefined) {
        list = {
          type: "list",
          ordered: k === "ordered",
          spread: false,
          ...(start !== undefined && { start }),
          children: [],
        };
        kind = k;
        out.push(list);
      }
      const content = phrasingOf(b.content);
      const item: ListItem = {
        type: "listItem",
        spread: false,
        checked: k === "check" ? b.props?.checked === true : null,
        // An item with no text of its own holds its nested blocks directly ("1. - a"), not an empty first paragraph.
        children: [
          ...(content.length ? [{ type: "paragraph" as const, children: content }] : []),
          ...(nested(b) as ListItem["children"]),
        ],
      };
      list.children.push(item);
      continue;
    }
    list = null;
    kind = null;
    out.push(...blockToFlow(b), ...nested(b));
  }
  return out;
}

/** Blocks and all their descendants in reading order, one flat list; an explicit stack, no recursion. */
function flatten(blocks: readonly Block[]): Block[] {
  const out: Block[] = [];
  const stack: Block[] = [...blocks].reverse();
  while (stack.length > 0) {
    const b = stack.pop()!;
    out.push(b);
    const kids = childrenOf(b);
    for (let i = kids.length - 1; i >= 0; i--) stack.push(kids[i]!);
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
      const lang =
        typeof props.language === "string" && props.language && props.language !== "text" ? props.language : null;
      return [{ type: "code", lang, value: plainText(b.content) }];
    }
    case "table":
      return tableFlow(b.content);
    case "divider":
      return [{ type: "thematicBreak" }];
    case "image": {
      const url = typeof props.url === "string" ? props.url : "";
      if (!url) return [];
      return [
        {
          type: "paragraph",
          children: [{ type: "image", url, alt: typeof props.caption === "string" ? props.caption : "" }],
        },
      ];
    }
    case "video":
    case "audio":
    case "file": {
      const url = typeof props.url === "string" ? props.url : "";
      if (!url) return [];
      const label =
        (typeof props.name === "string" && props.name) || (typeof props.caption === "string" && props.caption) || url;
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

/** Inline content as text only (code blocks, inline content nested past MAX_INLINE_DEPTH); an explicit stack, no recursion. */
function plainText(content: unknown): string {
  const parts: string[] = [];
  // Pending contents: a string is text, an array a list of items (strings, or objects with text or content).
  const stack: unknown[] = [content];
  while (stack.length > 0) {
    const c = stack.pop();
    if (typeof c === "string") parts.push(c);
    else if (Array.isArray(c)) {
      for (let i = c.length - 1; i >= 0; i--) {
        const item: unknown = c[i];
        if (typeof item === "string") stack.push(item);
        else if (isObject(item)) stack.push(typeof item.text === "string" ? item.text : item.content);
      }
    }
  }
  return parts.join("");
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
    parts.push({
      node: styles.code === true ? { type: "inlineCode", value: line } : { type: "text", value: line },
      styles,
    });
  });
  return parts;
}

/** Inline content nested deeper than this (a link inside a link's text, a mention inside that…) is read as its text. */
const MAX_INLINE_DEPTH = 4;

function piecesOf(content: unknown, inTable: boolean, depth = 0): Piece[] {
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
      const children = nestMarks(innerPieces(item.content, inTable, depth).filter((p) => p.node.type !== "break"));
      if (children.length === 0 && item.href === "") continue;
      out.push({
        node: {
          type: "link",
          url: item.href,
          children: children.length ? (children as never) : [{ type: "text", value: item.href }],
        },
        styles: {},
      });
    } else if (item.content !== undefined) {
      // A custom inline (a mention, a reference): its own text.
      out.push(...innerPieces(item.content, inTable, depth));
    }
  }
  return out;
}

function innerPieces(content: unknown, inTable: boolean, depth: number): Piece[] {
  return depth >= MAX_INLINE_DEPTH
    ? textPieces(plainText(content), {}, inTable)
    : piecesOf(content, inTable, depth + 1);
}

function phrasingOf(content: unknown, inTable = false): PhrasingContent[] {
  return nestMarks(piecesOf(content, inTable));
}
