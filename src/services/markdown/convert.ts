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
 * This file reads Markdown; ./toMarkdown.ts writes it. Markdown → blocks → Markdown is stable for these constructs
 * (test/services/markdown/convert.test.ts). Blocks Markdown cannot say (colours, alignment, underline, empty
 * paragraphs, a non-list block's children indentation) lose that on export.
 */
import type {
  Blockquote,
  Code,
  Heading,
  Image,
  List,
  ListItem,
  Paragraph,
  PhrasingContent,
  Root,
  RootContent,
  Table,
  TableCell,
  TableRow,
} from "mdast";
import remarkGfm from "remark-gfm";
import remarkParse from "remark-parse";
import { unified } from "unified";
import { unprocessable } from "../../errors";
import { MAX_BLOCK_DEPTH } from "../../lib/blockDepth";
import type { Block, InlineContent, Link, StyledText, TableContent } from "../collab/blocks";
import { MAX_MARKDOWN_NESTING, prescanMarkdown } from "./prescan";

type Styles = Record<string, string | boolean>;

const DEFAULT_PROPS = { textColor: "default", backgroundColor: "default", textAlignment: "left" };

const newBlockId = () => crypto.randomUUID();

function block(
  type: string,
  props: Record<string, unknown>,
  content?: Block["content"],
  children: Block[] = [],
): Block {
  return { id: newBlockId(), type, props, ...(content !== undefined && { content }), children };
}

// ───────────────────────────── Markdown → blocks ─────────────────────────────

const parser = unified().use(remarkParse).use(remarkGfm);

/** Blocks one import may create (docs/api-guide.md › Limits); past it the import is 422. */
export const MAX_IMPORT_BLOCKS = 50_000;
/**
 * How deep remark's tree may be for the conversion below: the pre-scan's bound on containers, the list node that
 * holds each list item, the paragraph and the inline nesting. The tree is measured without recursion first, so the
 * conversion's recursion is never deeper than this.
 */
const MAX_TREE_DEPTH = 3 * MAX_MARKDOWN_NESTING + 8;

const lineOf = (node: { position?: { start: { line: number } } } | undefined) => node?.position?.start.line ?? 1;
const tooDeep = (line: number, message: string) =>
  unprocessable(`${message} (line ${line})`, [{ path: "body", message, line }]);

/**
 * The blocks of a Markdown text. What nests or costs past docs/api-guide.md › Limits is refused with 422 naming
 * the line: by ./prescan.ts before the parser runs, then exactly on the parsed tree (list items at most
 * MAX_BLOCK_DEPTH deep, at most MAX_IMPORT_BLOCKS blocks).
 */
export function markdownToBlocks(markdown: string): Block[] {
  prescanMarkdown(markdown);
  let tree: Root;
  try {
    tree = parser.parse(markdown) as Root;
  } catch (err) {
    // A stack the pre-scan's bounds should never let the parser exhaust: still the text's fault, not a 500.
    if (err instanceof RangeError)
      throw unprocessable("The Markdown nests too deeply to be read", [{ path: "body", message: "Nested too deeply" }]);
    throw err;
  }
  assertTreeDepth(tree);
  return flowToBlocks(tree.children, { depth: 1, blocks: 0 });
}

/** 422 naming the line of the first node deeper than MAX_TREE_DEPTH; an explicit stack, no recursion. */
function assertTreeDepth(tree: Root) {
  const stack: { node: Root | RootContent | PhrasingContent; depth: number }[] = [{ node: tree, depth: 1 }];
  while (stack.length > 0) {
    const { node, depth } = stack.pop()!;
    if (depth > MAX_TREE_DEPTH) throw tooDeep(lineOf(node), `Markdown nests more than ${MAX_TREE_DEPTH} levels deep`);
    if ("children" in node && Array.isArray(node.children))
      for (const child of node.children) stack.push({ node: child, depth: depth + 1 });
  }
}

/** Where a conversion is: the block depth of the blocks it makes, and the blocks made so far. */
interface At {
  depth: number;
  blocks: number;
}

function flowToBlocks(nodes: readonly RootContent[], at: At): Block[] {
  const out: Block[] = [];
  for (const node of nodes) {
    const made = nodeToBlocks(node, at);
    at.blocks += made.length;
    if (at.blocks > MAX_IMPORT_BLOCKS)
      throw tooDeep(lineOf(node), `A Markdown import makes at most ${MAX_IMPORT_BLOCKS} blocks`);
    out.push(...made);
  }
  return out;
}

function nodeToBlocks(node: RootContent, at: At): Block[] {
  switch (node.type) {
    case "heading":
      return [
        block(
          "heading",
          { ...DEFAULT_PROPS, level: (node as Heading).depth, isToggleable: false },
          inlineOf(node.children),
        ),
      ];
    case "paragraph":
      return paragraphBlocks(node as Paragraph);
    case "list":
      return listBlocks(node as List, at);
    case "blockquote":
      return quoteBlocks(node as Blockquote, at);
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
      return "children" in node && Array.isArray(node.children) ? flowToBlocks(node.children as RootContent[], at) : [];
  }
}

/** A paragraph; an image on its own (or images between text) becomes an image block in reading order. */
function paragraphBlocks(p: Paragraph): Block[] {
  const out: Block[] = [];
  let run: PhrasingContent[] = [];
  const flush = () => {
    const content = inlineOf(run);
    if (content.length && !content.every((c) => c.type === "text" && (c as StyledText).text.trim() === ""))
      out.push(block("paragraph", { ...DEFAULT_PROPS }, content));
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
  return block(
    "image",
    {
      textAlignment: "left",
      backgroundColor: "default",
      name: "",
      url: img.url,
      caption: img.alt ?? "",
      showPreview: true,
    },
    undefined,
  );
}

/** A list's items at `at.depth`; what they hold becomes their children, one level deeper (at most MAX_BLOCK_DEPTH). */
function listBlocks(list: List, at: At): Block[] {
  return list.children.map((item: ListItem, index) => {
    const [first, ...rest] = item.children;
    const content = first?.type === "paragraph" ? inlineOf(first.children) : [];
    const nested = first?.type === "paragraph" ? rest : item.children;
    if (nested.length > 0 && at.depth >= MAX_BLOCK_DEPTH) {
      throw tooDeep(lineOf(nested[0]), `Markdown list items nest more than ${MAX_BLOCK_DEPTH} deep`);
    }
    const inner: At = { depth: at.depth + 1, blocks: at.blocks };
    const children = flowToBlocks(nested, inner);
    at.blocks = inner.blocks;
    if (typeof item.checked === "boolean")
      return block("checkListItem", { ...DEFAULT_PROPS, checked: item.checked }, content, children);
    if (list.ordered) {
      const props: Record<string, unknown> = { ...DEFAULT_PROPS };
      if (index === 0 && typeof list.start === "number" && list.start !== 1) props.start = list.start;
      return block("numberedListItem", props, content, children);
    }
    return block("bulletListItem", { ...DEFAULT_PROPS }, content, children);
  });
}

function quoteBlocks(q: Blockquote, at: At): Block[] {
  const out: Block[] = [];
  for (const child of q.children) {
    if (child.type === "paragraph")
      out.push(block("quote", { textColor: "default", backgroundColor: "default" }, inlineOf(child.children)));
    else out.push(...nodeToBlocks(child, at));
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
