/**
 * The bounds a Markdown text must keep before remark parses it (docs/api-guide.md › Limits, › Markdown import and
 * export). micromark spends time superlinear in how deeply containers and inline constructs nest and in how many
 * inline constructs one paragraph holds, and several of its tree walks recurse once per level: 60 KB of `- - - …`
 * took minutes and then overflowed the stack. This scan reads the text once, line by line, in time linear in its
 * length, and refuses (422 naming the line) what could nest or cost past the bounds. Every estimate here is an
 * upper bound of what the parser would build — it may refuse a few odd texts that would have parsed, never let a
 * deeper one through:
 *
 * - containers: on each line, the block quote markers (`>`), list markers (`-`, `+`, `*`, `1.`, `1)`) and footnote
 *   labels (`[^x]:`) that open it, plus half the columns of white space before the last of them (a list item's
 *   content is indented at least two columns in each level that holds it). A line without a marker opens nothing:
 *   continuation and lazy lines only stay inside containers earlier lines opened.
 * - inline nesting, per paragraph: open brackets, plus the emphasis delimiters (`*`, `_`, `~`) that may open and
 *   are not yet closed (CommonMark's flanking rules; escaped characters skipped, code spans read as text).
 * - inline work: the inline constructs of a paragraph (delimiter runs, brackets, code span marks) at most
 *   MAX_PARAGRAPH_MARKS, and the sum of their squares over the text at most MAX_MARK_WORK.
 *
 * A paragraph here ends at a blank line, a heading or a bullet item line, which end every paragraph the parser
 * builds; so what is counted per paragraph is at least what the parser sees in one.
 */
import { MAX_BLOCK_DEPTH } from "../../lib/blockDepth";
import { unprocessable } from "../../errors";

/** Containers, and inline constructs within one another, at most this deep (twice the block bound: indentation counts half). */
export const MAX_MARKDOWN_NESTING = 2 * MAX_BLOCK_DEPTH;
/** Inline constructs in one paragraph. */
export const MAX_PARAGRAPH_MARKS = 5_000;
/** The sum over paragraphs of their inline constructs squared (micromark resolves them in quadratic time). */
export const MAX_MARK_WORK = 250_000_000;

const refuse = (line: number, message: string) => unprocessable(`${message} (line ${line})`, [{ path: "body", message, line }]);

const isSpace = (c: number | undefined) => c === undefined || c === 32 || c === 9 || c === 10 || c === 13;
const isDigit = (c: number | undefined) => c !== undefined && c >= 48 && c <= 57;
// ASCII punctuation, which is what the flanking rules need; other Unicode punctuation is counted as a letter
// (a run then opens more often than it would: more counted, never less).
const isPunct = (c: number | undefined) => c !== undefined && ((c >= 33 && c <= 47) || (c >= 58 && c <= 64) || (c >= 91 && c <= 96) || (c >= 123 && c <= 126));

interface Paragraph {
  marks: number;
  brackets: number;
  /** Open brackets plus the emphasis delimiters that may still close, at every open bracket level. */
  depth: number;
  /** Emphasis delimiters that may still close, per character, in the open bracket levels (index 0: outside brackets). */
  levels: Map<number, number>[];
}

const newParagraph = (): Paragraph => ({ marks: 0, brackets: 0, depth: 0, levels: [new Map()] });

/**
 * Refuses (422, `details: [{ path: "body", line }]`) a Markdown text that nests or costs past the bounds above.
 * Linear in the text's length; stops at the first line past a bound.
 */
export function prescanMarkdown(text: string): void {
  let work = 0;
  let p = newParagraph();
  let line = 0;
  const endParagraph = () => {
    work += p.marks * p.marks;
    p = newParagraph();
  };
  for (let start = 0; start <= text.length; ) {
    line++;
    let end = start;
    while (end < text.length && text.charCodeAt(end) !== 10 && text.charCodeAt(end) !== 13) end++;
    const next = end < text.length && text.charCodeAt(end) === 13 && text.charCodeAt(end + 1) === 10 ? end + 2 : end + 1;

    const { depth, contentAt, startsParagraph } = containerPrefix(text, start, end);
    if (depth > MAX_MARKDOWN_NESTING) throw refuse(line, `Markdown containers (quotes, list items) nest more than ${MAX_MARKDOWN_NESTING} deep`);
    if (startsParagraph) endParagraph();
    scanInline(text, contentAt, end, p, line);
    if (p.marks > MAX_PARAGRAPH_MARKS) throw refuse(line, `A paragraph holds more than ${MAX_PARAGRAPH_MARKS} inline marks (emphasis, links, code)`);
    if (work + p.marks * p.marks > MAX_MARK_WORK) throw refuse(line, "The Markdown holds too much inline markup to import in one piece: split it");
    start = next;
  }
}

/**
 * The container markers at the start of text[start, end): the upper bound of the containers the line can be in,
 * where its content starts, and whether it ends the paragraph before it (blank, a heading, a bullet item).
 */
function containerPrefix(text: string, start: number, end: number) {
  let i = start;
  let col = 0;
  let spaces = 0;
  let spacesBeforeLast = 0;
  let markers = 0;
  let firstIndent = -1;
  let firstChar = -1;
  for (;;) {
    while (i < end) {
      const c = text.charCodeAt(i);
      if (c === 32) {
        col++;
        spaces++;
      } else if (c === 9) {
        const w = 4 - (col % 4);
        col += w;
        spaces += w;
      } else break;
      i++;
    }
    if (firstIndent < 0) {
      firstIndent = col;
      firstChar = i < end ? text.charCodeAt(i) : -1;
    }
    if (i >= end) break;
    const c = text.charCodeAt(i);
    let after = -1;
    if (c === 62 /* > */) after = i + 1;
    else if ((c === 45 || c === 43 || c === 42) /* - + * */ && isSpace(i + 1 < end ? text.charCodeAt(i + 1) : undefined)) after = i + 1;
    else if (isDigit(c)) {
      let j = i;
      while (j < end && j - i < 9 && isDigit(text.charCodeAt(j))) j++;
      const m = j < end ? text.charCodeAt(j) : -1;
      if ((m === 46 || m === 41) /* . ) */ && isSpace(j + 1 < end ? text.charCodeAt(j + 1) : undefined)) after = j + 1;
    } else if (c === 91 /* [ */ && text.charCodeAt(i + 1) === 94 /* ^ */) {
      // A footnote definition's label `[^…]:` (labels are at most 999 characters).
      let j = i + 2;
      while (j < end && j - i < 1002 && text.charCodeAt(j) !== 93) j++;
      if (j < end && text.charCodeAt(j) === 93 && text.charCodeAt(j + 1) === 58) after = j + 2;
    }
    if (after < 0) break;
    markers++;
    spacesBeforeLast = spaces;
    col += after - i;
    i = after;
    if (markers + (spacesBeforeLast >> 1) > MAX_MARKDOWN_NESTING) break;
  }
  const blank = i >= end && markers === 0;
  // A bullet item with text, or an ATX heading, at most three columns in: it ends any paragraph before it.
  const rest = text.slice(i, Math.min(end, i + 8));
  const bulletWithText = firstIndent <= 3 && (firstChar === 45 || firstChar === 43 || firstChar === 42) && markers > 0 && rest.trim() !== "";
  const heading = markers === 0 && firstIndent <= 3 && /^#{1,6}(\s|$)/.test(rest);
  return { depth: markers + (spacesBeforeLast >> 1), contentAt: i, startsParagraph: blank || bulletWithText || heading };
}

/** Counts the inline constructs of text[from, end) into `p`, refusing nesting past the bound. */
function scanInline(text: string, from: number, end: number, p: Paragraph, line: number) {
  for (let i = from; i < end; ) {
    const c = text.charCodeAt(i);
    if (c === 92 /* \ */) {
      // An escaped character is text (or, after a backslash inside a code span, the span's closing backtick).
      i += 2;
      continue;
    }
    if (c === 96 /* ` */) {
      // Code span marks cost work; what they enclose is still counted (more is counted, never less).
      p.marks++;
      while (i < end && text.charCodeAt(i) === 96) i++;
      continue;
    }
    if (c === 91 /* [ */) {
      p.marks++;
      p.brackets++;
      p.depth++;
      p.levels.push(new Map());
      i++;
    } else if (c === 93 /* ] */) {
      p.marks++;
      if (p.brackets > 0) {
        p.brackets--;
        p.depth--;
        // Delimiters left open inside the brackets stay open outside them (the brackets may be no link).
        const inner = p.levels.pop()!;
        const outer = p.levels[p.levels.length - 1]!;
        for (const [k, v] of inner) outer.set(k, (outer.get(k) ?? 0) + v);
      }
      i++;
    } else if (c === 42 || c === 95 || c === 126 /* * _ ~ */) {
      let j = i;
      while (j < end && text.charCodeAt(j) === c) j++;
      delimiterRun(p, c, j - i, i > from ? text.charCodeAt(i - 1) : undefined, j < end ? text.charCodeAt(j) : undefined);
      i = j;
    } else {
      i++;
      continue;
    }
    if (p.depth > MAX_MARKDOWN_NESTING) throw refuse(line, `Markdown emphasis and links nest more than ${MAX_MARKDOWN_NESTING} deep`);
  }
}

/** A run of `length` delimiters `c` between `before` and `after`: it closes what it can, then opens (CommonMark 6.2). */
function delimiterRun(p: Paragraph, c: number, length: number, before: number | undefined, after: number | undefined) {
  p.marks++;
  const left = !isSpace(after) && (!isPunct(after) || isSpace(before) || isPunct(before));
  const right = !isSpace(before) && (!isPunct(before) || isSpace(after) || isPunct(after));
  const canOpen = c === 95 ? left && (!right || isPunct(before)) : left;
  const canClose = c === 95 ? right && (!left || isPunct(after)) : right;
  const level = p.levels[p.levels.length - 1]!;
  const was = level.get(c) ?? 0;
  let now = canClose ? Math.max(0, was - length) : was;
  if (canOpen) now += length;
  level.set(c, now);
  p.depth += now - was;
}
