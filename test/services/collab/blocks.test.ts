/**
 * The document-store converter (src/services/collab/blocks.ts): every block type of docs/api-guide.md › Automations, published portals, collaborative editing survives
 * JSON → Yjs → JSON, also when the Yjs state travels as an update into another document, and the Yjs side has
 * BlockNote's layout (what y-prosemirror produces for BlockNote's schema), so real BlockNote clients read it.
 */
import { describe, expect, it } from "vitest";
import * as Y from "yjs";
import { FRAGMENT_NAME, isBlockArray, writeBlocks, type Block } from "../../../src/services/collab/blocks";
import { readBlocks } from "../../../src/services/collab/readBlocks";
import { EVERY_BLOCK, text } from "../../support/collab-fixtures";

function roundTrip(blocks: Block[]) {
  const a = new Y.Doc();
  writeBlocks(a.getXmlFragment(FRAGMENT_NAME), blocks);
  // Through an update into another replica, as a remote client would receive it.
  const b = new Y.Doc();
  Y.applyUpdate(b, Y.encodeStateAsUpdate(a));
  return { doc: b, blocks: readBlocks(b.getXmlFragment(FRAGMENT_NAME)) };
}

describe("document-store converter", () => {
  it("round-trips every block type of docs/api-guide.md › Automations, published portals, collaborative editing", () => {
    const { blocks } = roundTrip(EVERY_BLOCK);
    expect(JSON.parse(JSON.stringify(blocks))).toEqual(JSON.parse(JSON.stringify(EVERY_BLOCK)));
  });

  for (const block of EVERY_BLOCK) {
    it(`round-trips a ${block.type} block on its own`, () => {
      expect(JSON.parse(JSON.stringify(roundTrip([block]).blocks))).toEqual(JSON.parse(JSON.stringify([block])));
    });
  }

  it("lays blocks out as BlockNote's ProseMirror schema through y-prosemirror", () => {
    const { doc } = roundTrip(EVERY_BLOCK);
    const fragment = doc.getXmlFragment(FRAGMENT_NAME);
    const group = fragment.get(0) as Y.XmlElement;
    expect(fragment.length).toBe(1);
    expect(group.nodeName).toBe("blockGroup");
    const first = group.get(0) as Y.XmlElement;
    expect(first.nodeName).toBe("blockContainer");
    expect(first.getAttribute("id")).toBe("p1");
    const para = first.get(0) as Y.XmlElement;
    expect(para.nodeName).toBe("paragraph");
    expect(para.getAttribute("textAlignment")).toBe("left");
    expect((first.get(1) as Y.XmlElement).nodeName).toBe("blockGroup");
    // Marks are format attributes named after the mark, holding its attrs.
    const delta = (para.get(0) as Y.XmlText).toDelta();
    expect(delta[1]).toEqual({ insert: "bold", attributes: { bold: {} } });
    expect(delta.find((d: any) => d.insert === " red")).toEqual({
      insert: " red",
      attributes: { textColor: { stringValue: "red" } },
    });
    expect(delta.find((d: any) => d.insert === "a ")).toEqual({
      insert: "a ",
      attributes: { link: { href: "https://example.com/a?b=1" } },
    });
    // A line break outside code is a hardBreak node; inside a code block it stays text.
    expect(para.toArray().some((c) => c instanceof Y.XmlElement && c.nodeName === "hardBreak")).toBe(true);
    const heading = (group.get(1) as Y.XmlElement).get(0) as Y.XmlElement;
    expect(heading.getAttribute("level")).toBe(1);
    const code = group
      .toArray()
      .map((c) => (c as Y.XmlElement).get(0) as Y.XmlElement)
      .find((e) => e.nodeName === "codeBlock")!;
    expect(code.toArray().every((c) => c instanceof Y.XmlText)).toBe(true);
    const table = group
      .toArray()
      .map((c) => (c as Y.XmlElement).get(0) as Y.XmlElement)
      .find((e) => e.nodeName === "table")!;
    const row = table.get(0) as Y.XmlElement;
    expect(row.nodeName).toBe("tableRow");
    const cell = row.get(0) as Y.XmlElement;
    expect(cell.nodeName).toBe("tableHeader");
    expect(cell.getAttribute("colwidth")).toEqual([120]);
    expect((cell.get(0) as Y.XmlElement).nodeName).toBe("tableParagraph");
    expect(((table.get(1) as Y.XmlElement).get(0) as Y.XmlElement).nodeName).toBe("tableCell");
  });

  it("reads what another replica edits concurrently, merged", () => {
    const a = new Y.Doc();
    writeBlocks(a.getXmlFragment(FRAGMENT_NAME), [
      { id: "x", type: "paragraph", props: {}, content: [text("hello")], children: [] },
    ]);
    const b = new Y.Doc();
    Y.applyUpdate(b, Y.encodeStateAsUpdate(a));
    const el = (x: Y.XmlFragment | Y.XmlElement, i = 0) => x.get(i) as Y.XmlElement;
    const textOf = (d: Y.Doc) => el(el(el(d.getXmlFragment(FRAGMENT_NAME)))).get(0) as unknown as Y.XmlText;
    textOf(a).insert(5, " world");
    textOf(b).insert(0, ">> ", { bold: {} });
    Y.applyUpdate(a, Y.encodeStateAsUpdate(b));
    Y.applyUpdate(b, Y.encodeStateAsUpdate(a));
    const expected = [
      {
        id: "x",
        type: "paragraph",
        props: {},
        content: [text(">> ", { bold: true }), text("hello world")],
        children: [],
      },
    ];
    expect(readBlocks(a.getXmlFragment(FRAGMENT_NAME))).toEqual(expected);
    expect(readBlocks(b.getXmlFragment(FRAGMENT_NAME))).toEqual(expected);
  });

  it("replaces the whole fragment in one transaction", () => {
    const doc = new Y.Doc();
    const fragment = doc.getXmlFragment(FRAGMENT_NAME);
    writeBlocks(fragment, EVERY_BLOCK);
    let updates = 0;
    doc.on("update", () => updates++);
    writeBlocks(fragment, [{ id: "only", type: "paragraph", props: {}, content: [text("only")], children: [] }]);
    expect(updates).toBe(1);
    expect(readBlocks(fragment).map((b) => b.id)).toEqual(["only"]);
  });

  it("tells BlockNote blocks from other JSON", () => {
    expect(isBlockArray(EVERY_BLOCK)).toBe(true);
    expect(isBlockArray([])).toBe(true);
    expect(isBlockArray(["secret"])).toBe(false);
    expect(isBlockArray({ type: "paragraph" })).toBe(false);
    expect(isBlockArray([{ type: "paragraph", content: 5 }])).toBe(false);
    expect(isBlockArray([{ id: "a", type: "paragraph", content: "plain string", children: [] }])).toBe(true);
  });
});
