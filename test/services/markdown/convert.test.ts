/** Markdown ⇄ blocks (docs/api-guide.md › Markdown import and export): each construct, and round trips property-tested. */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { markdownToBlocks } from "../../../src/services/markdown/convert";
import { blocksToMarkdown } from "../../../src/services/markdown/toMarkdown";

/** Blocks without their ids (fresh on every import). */
function shape(blocks: unknown): unknown {
  return JSON.parse(JSON.stringify(blocks, (k, v) => (k === "id" ? undefined : v)));
}

describe("Markdown import", () => {
  it("reads headings, paragraphs with styles and links, lists, task lists, quotes, code, tables, images and rules", () => {
    const md = [
      "# Title",
      "",
      "### Third *level*",
      "",
      "Some **bold**, *italic*, ~~struck~~ and `code` with a [link](https://example.com/a?b=c).",
      "",
      "- one",
      "- two",
      "  - nested",
      "",
      "3. third",
      "4. fourth",
      "",
      "- [ ] todo",
      "- [x] done",
      "",
      "> quoted",
      "",
      "```ts",
      "const x = 1;",
      "",
      "```",
      "",
      "| A | B |",
      "| - | - |",
      "| 1 | **2** |",
      "",
      "![A cat](https://example.com/cat.png)",
      "",
      "---",
      "",
      "line one  ",
      "line two",
    ].join("\n");
    const blocks = shape(markdownToBlocks(md)) as any[];
    expect(blocks.map((b) => b.type)).toEqual([
      "heading",
      "heading",
      "paragraph",
      "bulletListItem",
      "bulletListItem",
      "numberedListItem",
      "numberedListItem",
      "checkListItem",
      "checkListItem",
      "quote",
      "codeBlock",
      "table",
      "image",
      "divider",
      "paragraph",
    ]);
    expect(blocks[0]).toMatchObject({ props: { level: 1 }, content: [{ type: "text", text: "Title", styles: {} }] });
    expect(blocks[1].props.level).toBe(3);
    expect(blocks[2].content).toEqual([
      { type: "text", text: "Some ", styles: {} },
      { type: "text", text: "bold", styles: { bold: true } },
      { type: "text", text: ", ", styles: {} },
      { type: "text", text: "italic", styles: { italic: true } },
      { type: "text", text: ", ", styles: {} },
      { type: "text", text: "struck", styles: { strike: true } },
      { type: "text", text: " and ", styles: {} },
      { type: "text", text: "code", styles: { code: true } },
      { type: "text", text: " with a ", styles: {} },
      { type: "link", href: "https://example.com/a?b=c", content: [{ type: "text", text: "link", styles: {} }] },
      { type: "text", text: ".", styles: {} },
    ]);
    expect(blocks[4].children.map((c: any) => c.type)).toEqual(["bulletListItem"]);
    expect(blocks[5].props.start).toBe(3);
    expect(blocks[7].props.checked).toBe(false);
    expect(blocks[8].props.checked).toBe(true);
    expect(blocks[10]).toMatchObject({ props: { language: "ts" }, content: [{ text: "const x = 1;\n" }] });
    expect(blocks[11].content.rows).toHaveLength(2);
    expect(blocks[11].content.rows[1].cells[1].content).toEqual([{ type: "text", text: "2", styles: { bold: true } }]);
    expect(blocks[12].props).toMatchObject({ url: "https://example.com/cat.png", caption: "A cat" });
    expect(blocks[14].content).toEqual([{ type: "text", text: "line one\nline two", styles: {} }]);
  });
});

describe("Markdown export", () => {
  it("writes every supported construct and reads back to the same blocks", () => {
    const md = [
      "# Title",
      "",
      "A *b* **c** ~~d~~ `e` [f](https://e.com)",
      "",
      "- x",
      "  - y",
      "",
      "1. a",
      "2. b",
      "",
      "- [x] t",
      "",
      "> q",
      "",
      "```js",
      "a()",
      "```",
      "",
      "| h |",
      "| - |",
      "| v |",
      "",
      "![cap](https://e.com/i.png)",
      "",
      "---",
      "",
    ].join("\n");
    const out = blocksToMarkdown(markdownToBlocks(md));
    expect(out).toBe(md);
  });

  it("exports blocks Markdown has no form for as their text, and anything that is not a block list as empty", () => {
    expect(blocksToMarkdown({ not: "blocks" })).toBe("");
    expect(blocksToMarkdown([])).toBe("");
    const blocks = [
      {
        id: "1",
        type: "paragraph",
        props: { textColor: "red" },
        content: [{ type: "text", text: "under", styles: { underline: true } }],
        children: [],
      },
      {
        id: "2",
        type: "mention",
        props: {},
        content: "plain string content",
        children: [{ id: "3", type: "paragraph", content: "child", children: [] }],
      },
      { id: "4", type: "file", props: { url: "https://e.com/f.pdf", name: "f.pdf" }, children: [] },
      { id: "5", type: "paragraph", props: {}, content: [], children: [] },
      "garbage",
    ];
    expect(blocksToMarkdown(blocks)).toBe("under\n\nplain string content\n\nchild\n\n[f.pdf](https://e.com/f.pdf)\n");
  });
});

// ───────────────────────────── properties ─────────────────────────────

/** Words with the characters Markdown gives meaning to, so escaping is exercised (not `<`: raw HTML is not a supported construct). */
const word = fc.stringMatching(/^[A-Za-z0-9][A-Za-z0-9.,!?*_`#[\]()&|\\~+=:-]{0,10}$/);
const words = fc.array(word, { minLength: 1, maxLength: 5 }).map((ws) => ws.join(" "));
const url = fc.constantFrom("https://example.com/", "https://example.com/a_b?c=d&e=(f)", "http://x.test/p%20q");

const inlineMd = fc
  .array(
    fc.oneof(
      words,
      words.map((w) => `**${w.replace(/\*/g, "")}**`),
      words.map((w) => `*${w.replace(/\*/g, "")}*`),
      words.map((w) => `~~${w.replace(/~/g, "")}~~`),
      words.map((w) => `\`${w.replace(/`/g, "")}\``),
      fc.tuple(words, url).map(([w, u]) => `[${w.replace(/[[\]]/g, "")}](${u})`),
    ),
    { minLength: 1, maxLength: 4 },
  )
  .map((parts) => parts.join(" "));

const listMd = (marker: (i: number) => string) =>
  fc
    .array(inlineMd, { minLength: 1, maxLength: 4 })
    .map((items) => items.map((t, i) => `${marker(i)} ${t}`).join("\n"));

const blockMd = fc.oneof(
  fc.tuple(fc.integer({ min: 1, max: 6 }), inlineMd).map(([d, t]) => `${"#".repeat(d)} ${t}`),
  inlineMd,
  listMd(() => "-"),
  listMd((i) => `${i + 1}.`),
  fc
    .tuple(fc.array(fc.boolean(), { minLength: 1, maxLength: 3 }), inlineMd)
    .map(([checks, t]) => checks.map((c) => `- [${c ? "x" : " "}] ${t}`).join("\n")),
  fc.tuple(inlineMd, inlineMd).map(([a, b]) => `- ${a}\n  - ${b}`),
  inlineMd.map((t) => `> ${t}`),
  fc
    .tuple(fc.constantFrom("", "ts", "python"), fc.array(words, { minLength: 0, maxLength: 3 }))
    .map(([lang, lines]) => `\`\`\`${lang}\n${lines.join("\n")}\n\`\`\``),
  fc.tuple(fc.integer({ min: 1, max: 3 }), fc.integer({ min: 1, max: 3 }), words).map(([cols, rowCount, w]) => {
    const cell = w.replace(/[|\\]/g, "");
    const row = Array.from({ length: cols }, () => cell).join(" | ");
    return [
      `| ${row} |`,
      `| ${Array.from({ length: cols }, () => "-").join(" | ")} |`,
      ...Array.from({ length: rowCount }, () => `| ${row} |`),
    ].join("\n");
  }),
  fc.tuple(words, url).map(([alt, u]) => `![${alt.replace(/[[\]]/g, "")}](${u})`),
  fc.constant("---"),
);

const documentMd = fc.array(blockMd, { minLength: 1, maxLength: 8 }).map((bs) => bs.join("\n\n") + "\n");

describe("Markdown round trips (property)", () => {
  it("Markdown → blocks → Markdown is stable: a second pass changes neither the text nor the blocks", () => {
    fc.assert(
      fc.property(documentMd, (md0) => {
        const blocks1 = markdownToBlocks(md0);
        const md1 = blocksToMarkdown(blocks1);
        const blocks2 = markdownToBlocks(md1);
        const md2 = blocksToMarkdown(blocks2);
        expect(md2).toBe(md1);
        expect(shape(blocks2)).toEqual(shape(blocks1));
      }),
      { numRuns: 300 },
    );
  });

  it("blocks of the supported kinds survive export and import unchanged", () => {
    const styles = fc
      .record({ bold: fc.boolean(), italic: fc.boolean(), strike: fc.boolean(), code: fc.boolean() })
      .map((s) => Object.fromEntries(Object.entries(s).filter(([, v]) => v)));
    const textRun = fc.tuple(
      fc.stringMatching(/^[A-Za-z0-9][A-Za-z0-9 .,!?*_#[\]()&|~+=:-]{0,12}[A-Za-z0-9]$/),
      styles,
    );
    const content = fc
      .array(textRun, { minLength: 1, maxLength: 3 })
      .map((runs) => markdownToBlocks(runs.map(([t, s]) => md(t, s)).join(" "))[0]?.content ?? []);
    const simpleBlock = fc.oneof(
      content.map((c) => ({ type: "paragraph", c })),
      fc.tuple(fc.integer({ min: 1, max: 6 }), content).map(([level, c]) => ({ type: "heading", level, c })),
      content.map((c) => ({ type: "quote", c })),
      fc.tuple(fc.boolean(), content).map(([checked, c]) => ({ type: "checkListItem", checked, c })),
      content.map((c) => ({ type: "bulletListItem", c })),
    );
    fc.assert(
      fc.property(fc.array(simpleBlock, { minLength: 1, maxLength: 6 }), (specs) => {
        // Built through the importer so every block has the importer's props; then exported and imported again.
        const source = specs
          .map((s: any) => {
            const text = blocksToMarkdown([{ type: "paragraph", content: s.c, children: [] }]).trimEnd();
            if (s.type === "heading") return `${"#".repeat(s.level)} ${text}`;
            if (s.type === "quote") return `> ${text}`;
            if (s.type === "checkListItem") return `- [${s.checked ? "x" : " "}] ${text}`;
            if (s.type === "bulletListItem") return `- ${text}`;
            return text;
          })
          .join("\n\n");
        const blocks = markdownToBlocks(source);
        expect(shape(markdownToBlocks(blocksToMarkdown(blocks)))).toEqual(shape(blocks));
      }),
      { numRuns: 300 },
    );
  });
});

function md(text: string, s: Record<string, boolean>) {
  let out = s.code ? `\`${text.replace(/`/g, "")}\`` : text.replace(/([\\*_`#[\]()&|~+=:!<>.-])/g, "\\$1");
  if (s.strike) out = `~~${out}~~`;
  if (s.italic) out = `*${out}*`;
  if (s.bold) out = `**${out}**`;
  return out;
}
