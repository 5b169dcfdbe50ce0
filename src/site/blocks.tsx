/** @jsxImportSource hono/jsx */
/**
 * BlockNote block JSON (docs/api-guide.md › Automations, published portals, collaborative editing) → HTML through hono/jsx, which escapes every text and attribute value.
 * Paragraphs, headings 1–3, bullet/numbered/check list items, quotes, code blocks, tables and images; bold, italic,
 * underline, strike and code styles; links only to http, https and mailto. Anything else renders its plain text.
 */
import type { Child } from "hono/jsx";
import { MAX_BLOCK_DEPTH } from "../lib/blockDepth";
import { safeHref, safeImageSrc } from "./safe";

type Json = any;

/**
 * Block levels rendered: renderBlocks counts from 0 and renders a block's children while its depth is at most this,
 * so every level content may have (MAX_BLOCK_DEPTH, docs/api-guide.md › Limits) renders; content stored deeper
 * before that bound existed stops at it.
 */
const MAX_DEPTH = MAX_BLOCK_DEPTH - 2;

function isObj(v: unknown): v is Record<string, Json> {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

/** Inline content nested deeper than this (a link in a link's text…) renders as its plain text. */
const MAX_INLINE_DEPTH = 4;

/**
 * Plain text of inline content or of a whole block (for unknown types and descriptions). An explicit stack, no
 * recursion: content stored before the nesting bound (docs/api-guide.md › Limits) may nest arbitrarily deep.
 */
export function plainText(content: Json): string {
  const out: string[] = [];
  // Pending values in reverse reading order; a string is text as it stands (separators included).
  const stack: Json[] = [content];
  const pushReversed = (items: Json[]) => {
    for (let i = items.length - 1; i >= 0; i--) stack.push(items[i]);
  };
  while (stack.length > 0) {
    const c = stack.pop();
    if (typeof c === "string") out.push(c);
    else if (Array.isArray(c)) pushReversed(c);
    else if (!isObj(c)) continue;
    else if (typeof c.text === "string") out.push(c.text);
    else if (c.type === "tableContent" && Array.isArray(c.rows)) {
      const parts: Json[] = [];
      c.rows.forEach((r: Json, i: number) => {
        if (i > 0) parts.push(" ");
        (Array.isArray(r?.cells) ? r.cells : []).forEach((cell: Json, j: number) => {
          if (j > 0) parts.push(" ");
          // A cell's content as one value: a string in it is text, not a separator.
          parts.push({ content: cellContent(cell) });
        });
      });
      pushReversed(parts);
    } else if (c.content !== undefined) stack.push(c.content);
  }
  return out.join("");
}

function styled(text: string, styles: Json): Child {
  let node: Child = text;
  if (!isObj(styles)) return node;
  if (styles.code === true) node = <code>{node}</code>;
  if (styles.strike === true) node = <s>{node}</s>;
  if (styles.underline === true) node = <u>{node}</u>;
  if (styles.italic === true) node = <em>{node}</em>;
  if (styles.bold === true) node = <strong>{node}</strong>;
  return node;
}

export function Inline({ content, depth = 0 }: { content: Json; depth?: number }): Child {
  if (typeof content === "string") return content;
  if (!Array.isArray(content)) return null;
  return content.map((item) => {
    if (typeof item === "string") return item;
    if (!isObj(item)) return null;
    if (item.type === "link") {
      const href = safeHref(item.href);
      const inner =
        depth >= MAX_INLINE_DEPTH ? plainText(item.content) : <Inline content={item.content} depth={depth + 1} />;
      return href ? (
        <a href={href} rel="noopener noreferrer nofollow">
          {inner}
        </a>
      ) : (
        <span>{inner}</span>
      );
    }
    if (typeof item.text === "string") return styled(item.text, item.styles);
    return plainText(item);
  });
}

function cellContent(cell: Json): Json {
  return isObj(cell) && cell.type === "tableCell" ? cell.content : cell;
}

function alignClass(props: Json): string | undefined {
  const a = isObj(props) ? props.textAlignment : undefined;
  return a === "center" || a === "right" || a === "justify" ? `align-${a}` : undefined;
}

function Children({ blocks, depth }: { blocks: Json; depth: number }): Child {
  if (!Array.isArray(blocks) || blocks.length === 0 || depth > MAX_DEPTH) return null;
  return <div class="nested">{renderBlocks(blocks, depth + 1)}</div>;
}

function ListItem({ block, depth }: { block: Record<string, Json>; depth: number }): Child {
  const nested =
    Array.isArray(block.children) && block.children.length > 0 && depth <= MAX_DEPTH
      ? renderBlocks(block.children, depth + 1)
      : null;
  if (block.type === "checkListItem") {
    const checked = isObj(block.props) && block.props.checked === true;
    return (
      <li class={checked ? "done" : undefined}>
        <span class="check" role="img" aria-label={checked ? "Done" : "Not done"}>
          {checked ? "☑" : "☐"}
        </span>
        <span class="text">
          <Inline content={block.content} />
        </span>
        {nested}
      </li>
    );
  }
  return (
    <li>
      <Inline content={block.content} />
      {nested}
    </li>
  );
}

function Table({ content }: { content: Json }): Child {
  const rows = isObj(content) && Array.isArray(content.rows) ? content.rows : [];
  const headerRows = isObj(content) && typeof content.headerRows === "number" ? content.headerRows : 0;
  return (
    <table>
      <tbody>
        {rows.map((row: Json, i: number) => (
          <tr>
            {(isObj(row) && Array.isArray(row.cells) ? row.cells : []).map((cell: Json) =>
              i < headerRows ? (
                <th scope="col">
                  <Inline content={cellContent(cell)} />
                </th>
              ) : (
                <td>
                  <Inline content={cellContent(cell)} />
                </td>
              ),
            )}
          </tr>
        ))}
      </tbody>
    </table>
  );
}

// eslint-disable-next-line max-lines-per-function -- one case per BlockNote block type, as the reader site renders it
function Block({ block, depth }: { block: Json; depth: number }): Child {
  if (typeof block === "string") return <p>{block}</p>;
  if (!isObj(block)) return null;
  const props = isObj(block.props) ? block.props : {};
  const cls = alignClass(props);
  const children = <Children blocks={block.children} depth={depth} />;
  switch (block.type) {
    case "paragraph":
      return (
        <>
          <p class={cls}>
            <Inline content={block.content} />
          </p>
          {children}
        </>
      );
    case "heading": {
      const level = Math.min(Math.max(Number(props.level) || 1, 1), 3);
      const inner = <Inline content={block.content} />;
      // A heading of level n is <hn>, as the document's author chose it (HTML allows more than one h1 per page).
      const h =
        level === 1 ? (
          <h1 class={cls}>{inner}</h1>
        ) : level === 2 ? (
          <h2 class={cls}>{inner}</h2>
        ) : (
          <h3 class={cls}>{inner}</h3>
        );
      return (
        <>
          {h}
          {children}
        </>
      );
    }
    case "quote":
      return (
        <>
          <blockquote>
            <p>
              <Inline content={block.content} />
            </p>
          </blockquote>
          {children}
        </>
      );
    case "codeBlock": {
      const lang =
        typeof props.language === "string" && /^[A-Za-z0-9+#._-]{1,32}$/.test(props.language)
          ? `language-${props.language}`
          : undefined;
      return (
        <>
          <pre>
            <code class={lang}>{plainText(block.content)}</code>
          </pre>
          {children}
        </>
      );
    }
    case "table":
      return (
        <>
          <Table content={block.content} />
          {children}
        </>
      );
    case "image": {
      const src = safeImageSrc(props.url);
      const caption = typeof props.caption === "string" ? props.caption : "";
      const alt = caption || (typeof props.name === "string" ? props.name : "");
      return (
        <>
          {src ? (
            <figure>
              <img src={src} alt={alt} loading="lazy" />
              {caption ? <figcaption>{caption}</figcaption> : null}
            </figure>
          ) : caption ? (
            <p>{caption}</p>
          ) : null}
          {children}
        </>
      );
    }
    default: {
      const text = plainText(block.content);
      return (
        <>
          {text ? <p>{text}</p> : null}
          {children}
        </>
      );
    }
  }
}

const LIST_TAG: Record<string, "ul" | "ol"> = { bulletListItem: "ul", numberedListItem: "ol", checkListItem: "ul" };

/** Blocks in order, consecutive list items of one kind gathered into one list element. */
export function renderBlocks(blocks: Json, depth = 0): Child[] {
  if (!Array.isArray(blocks)) return [];
  const out: Child[] = [];
  for (let i = 0; i < blocks.length;) {
    const b = blocks[i];
    const kind = isObj(b) && typeof b.type === "string" ? b.type : "";
    if (LIST_TAG[kind]) {
      const items: Record<string, Json>[] = [];
      while (i < blocks.length && isObj(blocks[i]) && blocks[i].type === kind) items.push(blocks[i++]);
      const lis = items.map((item) => <ListItem block={item} depth={depth} />);
      if (kind === "numberedListItem") {
        const start = Number(items[0]?.props?.start);
        out.push(<ol start={Number.isInteger(start) && start > 1 ? start : undefined}>{lis}</ol>);
      } else {
        out.push(<ul class={kind === "checkListItem" ? "checklist" : undefined}>{lis}</ul>);
      }
      continue;
    }
    out.push(<Block block={b} depth={depth} />);
    i++;
  }
  return out;
}
