/**
 * BlockNote JSON holding every block type of docs/api-guide.md › Automations, published portals, collaborative editing, with every style and a link (converter and room tests).
 */
import type { Block } from "../../src/services/collab/blocks";

export const text = (t: string, styles: Record<string, string | boolean> = {}) => ({
  type: "text" as const,
  text: t,
  styles,
});

export const EVERY_BLOCK: Block[] = [
  {
    id: "p1",
    type: "paragraph",
    props: { textColor: "default", backgroundColor: "default", textAlignment: "left" },
    content: [
      text("plain "),
      text("bold", { bold: true }),
      text(" italic underline", { italic: true, underline: true }),
      text(" struck", { strike: true }),
      text(" code", { code: true }),
      text(" red", { textColor: "red" }),
      { type: "link", href: "https://example.com/a?b=1", content: [text("a "), text("link", { bold: true })] },
      text(" line\nbreak"),
    ],
    children: [
      {
        id: "p1c",
        type: "paragraph",
        props: {},
        content: [text("nested child")],
        children: [{ id: "p1cc", type: "paragraph", props: {}, content: [], children: [] }],
      },
    ],
  },
  { id: "h1", type: "heading", props: { level: 1, textAlignment: "left" }, content: [text("Title")], children: [] },
  { id: "h2", type: "heading", props: { level: 2 }, content: [text("Sub")], children: [] },
  { id: "h3", type: "heading", props: { level: 3 }, content: [text("Subsub")], children: [] },
  {
    id: "b1",
    type: "bulletListItem",
    props: {},
    content: [text("bullet")],
    children: [{ id: "b2", type: "bulletListItem", props: {}, content: [text("inner")], children: [] }],
  },
  { id: "n1", type: "numberedListItem", props: { start: 3 }, content: [text("numbered")], children: [] },
  { id: "c1", type: "checkListItem", props: { checked: true }, content: [text("done")], children: [] },
  { id: "c2", type: "checkListItem", props: { checked: false }, content: [text("todo")], children: [] },
  { id: "q1", type: "quote", props: {}, content: [text("quoted", { italic: true })], children: [] },
  {
    id: "k1",
    type: "codeBlock",
    props: { language: "typescript" },
    content: [text("const a = 1;\nconst b = 2;")],
    children: [],
  },
  {
    id: "t1",
    type: "table",
    props: { textColor: "default" },
    content: {
      type: "tableContent",
      columnWidths: [120, null],
      headerRows: 1,
      rows: [
        {
          cells: [
            { type: "tableCell", props: { backgroundColor: "default" }, content: [text("Name", { bold: true })] },
            { type: "tableCell", props: {}, content: [text("Value")] },
          ],
        },
        {
          cells: [
            { type: "tableCell", props: {}, content: [text("a")] },
            {
              type: "tableCell",
              props: { textAlignment: "right" },
              content: [{ type: "link", href: "https://x.test", content: [text("1")] }],
            },
          ],
        },
      ],
    },
    children: [],
  },
  {
    id: "i1",
    type: "image",
    props: { url: "https://example.com/cat.png", caption: "A cat", previewWidth: 512, showPreview: true },
    children: [],
  },
];
