/**
 * The Markdown pre-scan (src/services/markdown/prescan.ts, docs/api-guide.md › Limits): linear in the text, and its
 * estimates never below what remark builds, so nothing deeper than the bound reaches the parser unnoticed.
 */
import fc from "fast-check";
import type { Nodes, Root } from "mdast";
import remarkGfm from "remark-gfm";
import remarkParse from "remark-parse";
import { unified } from "unified";
import { describe, expect, it } from "vitest";
import { ApiError } from "../../../src/errors";
import { MAX_MARKDOWN_NESTING, prescanMarkdown } from "../../../src/services/markdown/prescan";

const parser = unified().use(remarkParse).use(remarkGfm);

const CONTAINERS = new Set(["blockquote", "listItem", "footnoteDefinition"]);
const INLINE = new Set(["emphasis", "strong", "delete", "link", "image", "linkReference", "imageReference"]);

/** The most containers, and the most inline constructs, any node of the tree is inside (an explicit stack). */
function nesting(tree: Root): { containers: number; inline: number } {
  let containers = 0;
  let inline = 0;
  const stack: { node: Nodes; c: number; i: number }[] = [{ node: tree, c: 0, i: 0 }];
  while (stack.length > 0) {
    const { node, c, i } = stack.pop()!;
    const cc = c + (CONTAINERS.has(node.type) ? 1 : 0);
    const ii = i + (INLINE.has(node.type) ? 1 : 0);
    containers = Math.max(containers, cc);
    inline = Math.max(inline, ii);
    if ("children" in node) for (const child of node.children) stack.push({ node: child as Nodes, c: cc, i: ii });
  }
  return { containers, inline };
}

/** The line the pre-scan refuses, or null when it lets the text through. */
function refusedAt(md: string): number | null {
  try {
    prescanMarkdown(md);
    return null;
  } catch (err) {
    if (!(err instanceof ApiError)) throw err;
    expect(err.code).toBe("UnprocessableEntityError");
    return err.details![0]!.line!;
  }
}

describe("Markdown pre-scan", () => {
  it("reads 5 MiB texts of every shape in linear time: ten times the text takes about ten times as long", () => {
    // Linear, measured as a ratio in the same run (absolute times move with the machine's load): 5 MiB against
    // 512 KiB of the same shape. A quadratic scan would take ~100 times as long; linear ~10 (slack for noise).
    const fill = (unit: string, size: number) => unit.repeat(Math.floor(size / unit.length));
    const units = {
      spaces: " ",
      flatList: "- item with *some* [link](https://example.com)\n",
      paragraphs: "Some **bold** text and `code` and a [link](u).\n\n",
      ticks: "`` ` ``` ",
      tabs: "\t",
      quotesPerLine: "> > > quoted\n",
      crOnly: "- a\r",
    };
    const timed = (md: string) => {
      const started = performance.now();
      refusedAt(md);
      return performance.now() - started;
    };
    for (const [name, unit] of Object.entries(units)) {
      const small = Math.max(timed(fill(unit, 512 * 1024)), 5);
      const large = timed(fill(unit, 5 * 1024 * 1024));
      expect(
        large / small,
        `${name}: ${Math.round(large)} ms for 5 MiB, ${Math.round(small)} ms for 512 KiB`,
      ).toBeLessThan(30);
      // And never the seconds a stall would take, however loaded the machine.
      expect(large, name).toBeLessThan(10_000);
    }
  });

  it("names the first line past the bound, whatever ends the lines (LF, CR LF, CR)", () => {
    const lines = Array.from({ length: 100 }, (_, i) => `${"  ".repeat(i)}- a`);
    for (const eol of ["\n", "\r\n", "\r"]) expect(refusedAt(lines.join(eol))).toBe(MAX_MARKDOWN_NESTING + 1);
    expect(refusedAt("ok\n\n" + "\t".repeat(40) + "- x")).toBe(3);
    expect(refusedAt("a\n" + "[^x]: ".repeat(MAX_MARKDOWN_NESTING + 1) + "x")).toBe(2);
    expect(refusedAt("a\n" + "- ".repeat(MAX_MARKDOWN_NESTING) + "x")).toBeNull();
  });

  it("lets ordinary documents through: a 32-deep list indented by four, long link lists, code, snake_case and `**kwargs`", () => {
    expect(refusedAt(Array.from({ length: 32 }, (_, i) => `${"    ".repeat(i)}1. item`).join("\n"))).toBeNull();
    expect(refusedAt("- [a](https://example.com) *b*\n".repeat(5000))).toBeNull();
    expect(refusedAt("```c\n" + "int *p = a[i] * b_c[j];\n".repeat(1000) + "```\n")).toBeNull();
    expect(refusedAt("Use `**kwargs` and some_snake_case_name, 2 * 3 * 4, a*b*c*d. ".repeat(10))).toBeNull();
  });

  it("never lets a text through whose containers nest deeper than the bound (property, against remark)", () => {
    const marker = fc.constantFrom("> ", ">", "- ", "* ", "+ ", "1. ", "2) ", "[^n]: ", "  ", "   ", "\t", " ");
    const line = fc
      .tuple(fc.array(marker, { minLength: 0, maxLength: 24 }), fc.constantFrom("a", "", "b *c*", "- d"))
      .map(([m, t]) => m.join("") + t);
    fc.assert(
      fc.property(fc.array(line, { minLength: 1, maxLength: 12 }), (lines) => {
        const md = lines.join("\n");
        if (refusedAt(md) !== null) return;
        expect(nesting(parser.parse(md) as Root).containers).toBeLessThanOrEqual(MAX_MARKDOWN_NESTING);
      }),
      { numRuns: 300 },
    );
  });

  it("never lets a paragraph through whose emphasis and links nest deeper than the bound (property, against remark)", () => {
    const token = fc.constantFrom(
      "*",
      "_",
      "**",
      "__",
      "~~",
      "[",
      "![",
      "](u)",
      "]",
      "a",
      " ",
      "`",
      "\\",
      "*a",
      "_a",
      "a*",
      "a_",
      "[x](u)",
      ".",
      "\n",
      "\u00a0",
      "é",
      "\u3000",
      "~",
      "~~~",
    );
    fc.assert(
      fc.property(fc.array(token, { minLength: 1, maxLength: 400 }), (tokens) => {
        const md = tokens.join("");
        if (refusedAt(md) !== null) return;
        expect(nesting(parser.parse(md) as Root).inline).toBeLessThanOrEqual(MAX_MARKDOWN_NESTING);
      }),
      { numRuns: 300 },
    );
    // Biased towards depth: openers first, then closers.
    for (const [open, close] of [
      ["*a ", " a*"],
      ["_a ", " a_"],
      ["![", "](u)"],
      ["*a _", "_ a*"],
      ["**a ", " a**"],
      ["\u00a0*a", "a* "],
      ["~~a ", "b~~~ "],
      ["~~a ", " a~~"],
    ]) {
      for (const n of [MAX_MARKDOWN_NESTING - 2, MAX_MARKDOWN_NESTING + 2, 200]) {
        const md = open!.repeat(n) + "x" + close!.repeat(n);
        if (refusedAt(md) !== null) continue;
        expect(nesting(parser.parse(md) as Root).inline, md.slice(0, 40)).toBeLessThanOrEqual(MAX_MARKDOWN_NESTING);
      }
    }
  });
});

describe("Markdown import work budget", () => {
  it("the costliest inline markup the budget lets through parses in seconds, not minutes", async () => {
    const { markdownToBlocks } = await import("../../../src/services/markdown/convert");
    const { MAX_MARK_WORK, MAX_PARAGRAPH_STRAY_CLOSERS } = await import("../../../src/services/markdown/prescan");
    const marks = Math.floor(Math.sqrt(MAX_MARK_WORK)) - 10;
    const cases = {
      // Closing brackets with nothing to close are micromark's slowest mark (each looks back over the paragraph).
      strayClosers:
        "[a](u) ".repeat(Math.floor((marks - MAX_PARAGRAPH_STRAY_CLOSERS) / 2)) +
        "a] ".repeat(MAX_PARAGRAPH_STRAY_CLOSERS),
      emphasis: "*a* ".repeat(marks / 2),
      links: "[a](u) ".repeat(marks / 2),
    };
    for (const [name, md] of Object.entries(cases)) {
      expect(refusedAt(md), name).toBeNull();
      const started = performance.now();
      markdownToBlocks(md);
      const ms = performance.now() - started;
      console.log(`work budget, ${name}: ${md.length} bytes parsed in ${Math.round(ms)} ms`);
      expect(ms, name).toBeLessThan(8000);
    }
    expect(refusedAt("a] ".repeat(MAX_PARAGRAPH_STRAY_CLOSERS + 1))).toBe(1);
  });
});
