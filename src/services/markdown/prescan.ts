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
 *   labels (`[^x]:`) that open it, plus half the columns of white space before the first list marker or label (a
 *   list item's content is indented at least two columns in each level that holds it; past a list marker all is new). A line without a marker opens nothing:
 *   continuation and lazy lines only stay inside containers earlier lines opened.
 * - inline nesting, per paragraph and kind (brackets, `*`, `_`, `~`): the lesser of the openers not yet closed
 *   and the closers still to come in the paragraph (CommonMark's flanking rules; escaped characters skipped, code
 *   spans read as text, so code with `*p` or `**kwargs` counts openers that nothing closes: no nesting).
 * - work: the inline constructs of a paragraph (delimiter runs, brackets, code span marks) at most
 *   MAX_PARAGRAPH_MARKS, closing brackets with nothing to close at most MAX_PARAGRAPH_STRAY_CLOSERS, the sum of
 *   the constructs' squares over the text at most MAX_MARK_WORK, and lines, container markers, table pipes and
 *   inline marks together (an upper bound of the nodes the parser builds) at most MAX_MARKDOWN_NODES.
 *
 * A paragraph here ends at a blank line, a heading or a bullet item line, which end every paragraph the parser
 * builds; so what is counted per paragraph is at least what the parser sees in one.
 */
import { MAX_BLOCK_DEPTH } from "../../lib/blockDepth";
import { unprocessable } from "../../errors";

/** Containers, and inline constructs within one another, at most this deep (twice the block bound: indentation counts half). */
export const MAX_MARKDOWN_NESTING = 2 * MAX_BLOCK_DEPTH;
/** Inline constructs in one paragraph. */
export const MAX_PARAGRAPH_MARKS = 20_000;
/** Closing brackets with no bracket open before them in their paragraph (each makes micromark look back over all of it). */
export const MAX_PARAGRAPH_STRAY_CLOSERS = 500;
/**
 * The parse's nodes, bounded from above: every line, container marker, table pipe and inline mark counts one. Time
 * and memory of remark grow with them (50,000 list items took 5.4 s; 250,000 ran the isolate out of memory).
 */
export const MAX_MARKDOWN_NODES = 60_000;
/** The sum over paragraphs of their inline constructs squared (micromark resolves them in quadratic time). */
export const MAX_MARK_WORK = 250_000_000;

const refuse = (line: number, message: string) =>
  unprocessable(`${message} (line ${line})`, [{ path: "body", message, line }]);

const isSpace = (c: number | undefined) => c === undefined || c === 32 || c === 9 || c === 10 || c === 13;
const isDigit = (c: number | undefined) => c !== undefined && c >= 48 && c <= 57;
// ASCII punctuation; a neighbour outside ASCII is read every way it could be (see flanking).
const isPunct = (c: number | undefined) =>
  c !== undefined && ((c >= 33 && c <= 47) || (c >= 58 && c <= 64) || (c >= 91 && c <= 96) || (c >= 123 && c <= 126));

/** Closers of each kind a paragraph holds from a point on: `]` and the emphasis characters that may close. */
type Closers = Map<number, number>;

interface Paragraph {
  marks: number;
  /** Closing brackets met with no bracket open. */
  stray: number;
  /** Open brackets. */
  brackets: number;
  /** Emphasis delimiters that may still close, per character, in the open bracket levels (index 0: outside brackets). */
  levels: Map<number, number>[];
  /** The same summed over the levels, per character. */
  open: Map<number, number>;
  /** What can still close in the rest of the paragraph (from the first pass). */
  closers: Closers;
}

const newParagraph = (closers: Closers = new Map()): Paragraph => ({
  marks: 0,
  stray: 0,
  brackets: 0,
  levels: [new Map()],
  open: new Map(),
  closers,
});

/**
 * How deep the inline constructs in force can nest: a construct nests only between an opener before and a closer
 * after, so per kind the lesser of the openers not yet closed and the closers still to come.
 */
function inlineDepth(p: Paragraph): number {
  let n = Math.min(p.brackets, p.closers.get(93) ?? 0);
  for (const [c, v] of p.open) n += Math.min(v, p.closers.get(c) ?? 0);
  return n;
}

type LineVisit = (line: number, contentAt: number, end: number, startsParagraph: boolean, markers: number) => void;

/** Calls `visit` for every line (LF, CR LF and CR end lines) after its container prefix; 422 past the container bound. */
function eachLine(text: string, visit: LineVisit) {
  let line = 0;
  for (let start = 0; start <= text.length;) {
    line++;
    let end = start;
    while (end < text.length && text.charCodeAt(end) !== 10 && text.charCodeAt(end) !== 13) end++;
    const next =
      end < text.length && text.charCodeAt(end) === 13 && text.charCodeAt(end + 1) === 10 ? end + 2 : end + 1;
    const { depth, markers, contentAt, startsParagraph } = containerPrefix(text, start, end);
    if (depth > MAX_MARKDOWN_NESTING)
      throw refuse(line, `Markdown containers (quotes, list items) nest more than ${MAX_MARKDOWN_NESTING} deep`);
    visit(line, contentAt, end, startsParagraph, markers);
    start = next;
  }
}

/**
 * Refuses (422, `details: [{ path: "body", line }]`) a Markdown text that nests or costs past the bounds above.
 * Two passes, each linear in the text's length: the first counts each paragraph's closers (and checks the
 * containers), the second follows the openers; it stops at the first line past a bound.
 */
export function prescanMarkdown(text: string): void {
  const closersOf: Closers[] = [];
  let counting: Closers = new Map();
  eachLine(text, (_line, contentAt, end, startsParagraph) => {
    if (startsParagraph) {
      closersOf.push(counting);
      counting = new Map();
    }
    countClosers(text, contentAt, end, counting);
  });
  closersOf.push(counting);

  let paragraph = 0;
  let p = newParagraph(closersOf[0]);
  let work = 0;
  let nodes = 0;
  eachLine(text, (line, contentAt, end, startsParagraph, markers) => {
    if (startsParagraph) {
      work += p.marks * p.marks;
      nodes += p.marks;
      p = newParagraph(closersOf[++paragraph]);
    }
    nodes += 1 + markers;
    for (let i = contentAt; i < end; i++) if (text.charCodeAt(i) === 124 /* | */) nodes++;
    scanInline(text, contentAt, end, p, line);
    if (nodes + p.marks > MAX_MARKDOWN_NODES)
      throw refuse(
        line,
        `The Markdown holds more than ${MAX_MARKDOWN_NODES} lines, list and quote markers, table cells and inline marks: split it`,
      );
    if (p.marks > MAX_PARAGRAPH_MARKS)
      throw refuse(line, `A paragraph holds more than ${MAX_PARAGRAPH_MARKS} inline marks (emphasis, links, code)`);
    if (p.stray > MAX_PARAGRAPH_STRAY_CLOSERS)
      throw refuse(
        line,
        `A paragraph holds more than ${MAX_PARAGRAPH_STRAY_CLOSERS} closing brackets without an opening one`,
      );
    if (work + p.marks * p.marks > MAX_MARK_WORK)
      throw refuse(line, "The Markdown holds too much inline markup to import in one piece: split it");
  });
}

/**
 * The container markers at the start of text[start, end): the upper bound of the containers the line can be in,
 * where its content starts, and whether it ends the paragraph before it (blank, a heading, a bullet item).
 */
// eslint-disable-next-line max-lines-per-function -- one line's container markers scanned in a single linear pass (the pre-scan's point is one pass)
function containerPrefix(text: string, start: number, end: number) {
  let i = start;
  let col = 0;
  let spaces = 0;
  let spacesBeforeLast = 0;
  let markers = 0;
  let firstIndent = -1;
  let firstChar = -1;
  let opened = false;
  for (;;) {
    while (i < end) {
      const c = text.charCodeAt(i);
      // After a list marker or footnote label everything on the line is inside a container the line opens, so its
      // white space continues nothing: only markers count from there.
      if (c === 32) {
        col++;
        if (!opened) spaces++;
      } else if (c === 9) {
        const w = 4 - (col % 4);
        col += w;
        if (!opened) spaces += w;
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
    else if (
      (c === 45 || c === 43 || c === 42) /* - + * */ &&
      isSpace(i + 1 < end ? text.charCodeAt(i + 1) : undefined)
    )
      after = i + 1;
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
    if (c !== 62) opened = true;
    markers++;
    spacesBeforeLast = spaces;
    col += after - i;
    i = after;
    if (markers + (spacesBeforeLast >> 1) > MAX_MARKDOWN_NESTING) break;
  }
  const blank = i >= end && markers === 0;
  // A bullet item with text, or an ATX heading, at most three columns in: it ends any paragraph before it.
  const rest = text.slice(i, Math.min(end, i + 8));
  const bulletWithText =
    firstIndent <= 3 && (firstChar === 45 || firstChar === 43 || firstChar === 42) && markers > 0 && rest.trim() !== "";
  const heading = markers === 0 && firstIndent <= 3 && /^#{1,6}(\s|$)/.test(rest);
  return {
    depth: markers + (spacesBeforeLast >> 1),
    markers,
    contentAt: i,
    startsParagraph: blank || bulletWithText || heading,
  };
}

const add = (m: Map<number, number>, k: number, d: number) => m.set(k, (m.get(k) ?? 0) + d);

/** What a character next to a delimiter run counts as (CommonMark 6.2); outside ASCII it may be any of them. */
type Kind = "space" | "punct" | "other";
const ANY: readonly Kind[] = ["space", "punct", "other"];
const kindsOf = (c: number | undefined): readonly Kind[] =>
  c !== undefined && (c > 127 || (c < 32 && !isSpace(c)))
    ? ANY
    : [isSpace(c) ? "space" : isPunct(c) ? "punct" : "other"];

/**
 * Whether a run of delimiters `c` between `before` and `after` may open, may close, or surely closes (CommonMark
 * 6.2, GFM strikethrough), over every reading of a non-ASCII neighbour: openers and closers to come are counted when
 * they may be, an opener is taken as closed only when its closer surely is one.
 */
function flanking(c: number, length: number, before: number | undefined, after: number | undefined) {
  let openMaybe = false;
  let closeMaybe = false;
  let closeSurely = true;
  // GFM strikethrough is one or two tildes; longer runs are text.
  if (c === 126 && length > 2) return { openMaybe, closeMaybe, closeSurely: false };
  for (const b of kindsOf(before)) {
    for (const a of kindsOf(after)) {
      const left = a !== "space" && (a !== "punct" || b !== "other");
      const right = b !== "space" && (b !== "punct" || a !== "other");
      const open = c === 95 ? left && (!right || b === "punct") : left;
      const close = c === 95 ? right && (!left || a === "punct") : right;
      openMaybe ||= open;
      closeMaybe ||= close;
      closeSurely &&= close;
    }
  }
  return { openMaybe, closeMaybe, closeSurely };
}

/**
 * Walks the inline constructs of text[from, end): escapes skipped, code span marks and brackets and delimiter runs
 * reported in order.
 */
function eachMark(
  text: string,
  from: number,
  end: number,
  on: { tick(): void; bracket(c: number): void; run(c: number, length: number, before?: number, after?: number): void },
) {
  for (let i = from; i < end;) {
    const c = text.charCodeAt(i);
    if (c === 92 /* \ */) {
      // An escaped character is text (or, after a backslash inside a code span, the span's closing backtick).
      i += 2;
    } else if (c === 96 /* ` */) {
      // Code span marks cost work; what they enclose is still counted (more is counted, never less).
      on.tick();
      while (i < end && text.charCodeAt(i) === 96) i++;
    } else if (c === 91 || c === 93 /* [ ] */) {
      on.bracket(c);
      i++;
    } else if (c === 42 || c === 95 || c === 126 /* * _ ~ */) {
      let j = i;
      while (j < end && text.charCodeAt(j) === c) j++;
      on.run(c, j - i, i > from ? text.charCodeAt(i - 1) : undefined, j < end ? text.charCodeAt(j) : undefined);
      i = j;
    } else i++;
  }
}

/** First pass: the closers of text[from, end) added to a paragraph's. */
function countClosers(text: string, from: number, end: number, closers: Closers) {
  eachMark(text, from, end, {
    tick() {},
    bracket(c) {
      if (c === 93) add(closers, 93, 1);
    },
    run(c, length, before, after) {
      if (flanking(c, length, before, after).closeMaybe) add(closers, c, length);
    },
  });
}

/** Second pass: the inline constructs of text[from, end) counted into `p`, refusing nesting past the bound. */
function scanInline(text: string, from: number, end: number, p: Paragraph, line: number) {
  const check = () => {
    if (inlineDepth(p) > MAX_MARKDOWN_NESTING)
      throw refuse(line, `Markdown emphasis and links nest more than ${MAX_MARKDOWN_NESTING} deep`);
  };
  eachMark(text, from, end, {
    tick() {
      p.marks++;
    },
    bracket(c) {
      p.marks++;
      if (c === 91) {
        p.brackets++;
        p.levels.push(new Map());
      } else {
        add(p.closers, 93, -1);
        if (p.brackets === 0) p.stray++;
        else {
          p.brackets--;
          // Delimiters left open inside the brackets stay open outside them (the brackets may be no link).
          const inner = p.levels.pop()!;
          for (const [k, v] of inner) add(p.levels[p.levels.length - 1]!, k, v);
        }
      }
      check();
    },
    run(c, length, before, after) {
      p.marks++;
      const { openMaybe, closeMaybe, closeSurely } = flanking(c, length, before, after);
      const level = p.levels[p.levels.length - 1]!;
      const was = level.get(c) ?? 0;
      let now = was;
      if (closeMaybe) add(p.closers, c, -length);
      if (closeSurely) now = Math.max(0, was - length);
      if (openMaybe) now += length;
      level.set(c, now);
      add(p.open, c, now - was);
      check();
    },
  });
}
