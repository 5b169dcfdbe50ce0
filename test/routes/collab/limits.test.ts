/**
 * The room's limits (docs/api-guide.md › Automations, published portals, collaborative editing; security findings 7
 * and 10 of issue 34): large updates stored in chunks under the 2 MB value limit before anyone sees them, the 32 MiB
 * document limit counted on what the room holds, the socket caps, the per-socket message rate, and block nesting.
 */
import { env, evictDurableObject, runInDurableObject } from "cloudflare:test";
import { beforeAll, describe, expect, it } from "vitest";
import { ok, seedTenant, type Tenant } from "../../support/harness";
import { connect, openSocket, para, Peer } from "../../support/collab-peer";
import type { DocumentRoom } from "../../../src/durable/DocumentRoom";
import { MAX_VALUE_BYTES } from "../../../src/durable/room/persistence";
import {
  MAX_ROOM_SOCKETS,
  MAX_USER_SOCKETS,
  MESSAGE_BURST,
  MESSAGES_PER_SECOND,
} from "../../../src/durable/room/limits";
import { MAX_BLOCK_DEPTH } from "../../../src/lib/blockDepth";
import type { Block } from "../../../src/services/collab/blocks";
import * as Y from "yjs";

const room = (documentId: string) => env.DOCUMENT_ROOM.get(env.DOCUMENT_ROOM.idFromName(documentId));
const blocksOf = async (documentId: string) =>
  JSON.parse((await room(documentId).diagnostics({ blocks: true })).blocksJson!) as Block[];
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

let t: Tenant;
beforeAll(async () => {
  t = await seedTenant();
});

async function newDoc(name = "Limits doc") {
  const doc = await ok("POST", "/document", {
    token: t.owner.token,
    body: { projectId: t.projectId, parentId: t.folderId, name, type: "DOCUMENT" },
  });
  return doc.data._id as string;
}

/** `bytes` characters of incompressible text that start with `marker`. */
const bigText = (marker: string, bytes: number) =>
  (
    marker +
    Array.from({ length: Math.ceil(bytes / 16) }, () => Math.random().toString(36).slice(2, 18).padEnd(16, "z")).join(
      "",
    )
  ).slice(0, bytes);

/** Every stored value's size, in the room's tables that hold Yjs bytes (`data` columns). */
async function storedValueSizes(documentId: string) {
  return runInDurableObject(room(documentId), (_i: DocumentRoom, state) => {
    const sql = state.storage.sql;
    const tables = sql
      .exec<{ name: string }>("SELECT name FROM sqlite_master WHERE type = 'table' AND sql LIKE '%data BLOB%'")
      .toArray();
    return Object.fromEntries(
      tables.map(({ name }) => [
        name,
        sql
          .exec<{ size: number }>(`SELECT length(data) AS size FROM ${name}`)
          .toArray()
          .map((r) => r.size),
      ]),
    );
  });
}

/** A block nested `depth` levels deep (1: no children), the innermost holding `text`. */
function nested(depth: number, text: string, id = "n"): Block {
  let block = para(`${id}${depth}`, text);
  for (let d = depth - 1; d >= 1; d--) block = { ...para(`${id}${d}`, `level ${d}`), children: [block] };
  return block;
}

/** The innermost block's container: the one to give a child to. */
function innermostContainer(peer: Peer): Y.XmlElement {
  let el = (peer.fragment.get(0) as Y.XmlElement).get(0) as Y.XmlElement;
  for (;;) {
    const group = el.toArray().find((c): c is Y.XmlElement => c instanceof Y.XmlElement && c.nodeName === "blockGroup");
    if (!group) return el;
    el = group.get(0) as Y.XmlElement;
  }
}

describe("room limits", () => {
  it("stores a 3 MB update in chunks under 2 MB before anyone sees it; a connected peer receives it and a restarted room reloads it", async () => {
    expect(MAX_VALUE_BYTES).toBe(2_000_000);
    const docId = await newDoc();
    const a = await connect(docId, { token: t.editor.token });
    const b = await connect(docId, { token: t.owner.token });
    const big = bigText("BIG-3MB:", 3 * 1024 * 1024);
    a.write([para("big", big)]);
    await b.until(
      () => b.blocks()[0]?.content !== undefined && JSON.stringify(b.blocks()).includes("BIG-3MB:"),
      "the peer to receive the 3 MB update",
      20_000,
    );
    expect(b.blocks()).toEqual([para("big", big)]);
    const sizes = await storedValueSizes(docId);
    const all = Object.values(sizes).flat();
    // Nothing compacted yet: the one update is stored as two or more values, each under the deployed 2 MB limit.
    expect(all.filter((s) => s > 100_000).length).toBeGreaterThanOrEqual(2);
    expect(Math.max(...all)).toBeLessThanOrEqual(MAX_VALUE_BYTES);
    expect((await room(docId).diagnostics({ reload: true })).reload!.matches).toBe(true);
    // Hibernation (sockets kept) and a restart (sockets closed) both load exactly the stored bytes.
    await evictDurableObject(room(docId));
    expect(await blocksOf(docId)).toEqual([para("big", big)]);
    b.text(0).insert(0, "after:");
    await a.until(() => JSON.stringify(a.blocks()).includes("after:BIG-3MB:"), "an edit after the eviction");
    await evictDurableObject(room(docId), { webSockets: "close" });
    const c = await connect(docId, { token: t.viewer.token });
    expect(c.blocks()).toEqual([para("big", "after:" + big)]);
    c.close();
  });

  it("counts what the room holds against the document limit: an update past it closes with 1009 and nothing of it is seen, joined or written back", async () => {
    const docId = await newDoc();
    const stub = room(docId);
    await stub.diagnostics({ limits: { maxStateBytes: 12 * 1024 * 1024 } });
    const a = await connect(docId, { token: t.editor.token });
    const owner = await connect(docId, { token: t.owner.token });
    // ~10 MB in one update: more than one SQLite value holds even locally (SQLITE_TOOBIG), so it must be chunked.
    const first = bigText("FIRST:", 10 * 1024 * 1024);
    a.write([para("first", first)]);
    await owner.until(
      () => JSON.stringify(owner.blocks()).includes("FIRST:"),
      "the owner to receive the 10 MB update",
      30_000,
    );
    expect((await stub.diagnostics()).stats.storedBytes).toBeGreaterThan(10 * 1024 * 1024);
    // 3 MB more passes 12 MiB: refused, that socket closed with 1009.
    const fragment = a.fragment;
    a.doc.transact(() => writeBlocksAfter(fragment, bigText("REFUSED:", 3 * 1024 * 1024)));
    await a.until(() => a.closed !== null, "the update past the limit to be refused", 20_000);
    expect(a.closed!.code).toBe(1009);
    expect(a.closed!.reason).toMatch(/exceed/);
    const later = await connect(docId, { token: t.viewer.token });
    expect(JSON.stringify(later.blocks())).not.toContain("REFUSED:");
    expect(JSON.stringify(owner.blocks())).not.toContain("REFUSED:");
    expect(later.blocks()).toEqual([para("first", first)]);
    // The next small edit writes back what the room holds: the first update, nothing of the refused one.
    owner.text(0).insert(0, "x");
    await stub.flush();
    const content = await ok("GET", `/document/${docId}/content`, { token: t.owner.token });
    expect(JSON.stringify(content.data.blocks)).toContain("xFIRST:");
    expect(JSON.stringify(content.data.blocks)).not.toContain("REFUSED:");
    expect((await stub.diagnostics({ reload: true })).reload!.matches).toBe(true);
    owner.close();
    later.close();
    await stub.diagnostics({ limits: { maxStateBytes: null } });
  });

  it("caps the sockets of a room and of one user in a room: the one past the cap is closed at once with 4503", async () => {
    expect(MAX_ROOM_SOCKETS).toBe(50);
    expect(MAX_USER_SOCKETS).toBe(10);
    const docId = await newDoc();
    const mine: Peer[] = [];
    for (let i = 0; i < MAX_USER_SOCKETS; i++) mine.push(await connect(docId, { token: t.viewer.token }));
    const refused = await openSocket(docId, { token: t.viewer.token });
    expect(refused.status).toBe(101);
    const extra = new Peer(refused.webSocket!);
    await extra.until(() => extra.closed !== null, "the socket past the user's cap to be closed");
    expect(extra.closed!.code).toBe(4503);
    expect(extra.closed!.reason).toMatch(/10 sockets/);
    // Other users still get in; and the room's cap (lowered here) holds against everyone.
    const editor = await connect(docId, { token: t.editor.token });
    expect(editor.closed).toBeNull();
    await room(docId).diagnostics({ limits: { maxSockets: MAX_USER_SOCKETS + 1 } });
    const full = new Peer((await openSocket(docId, { token: t.owner.token })).webSocket!);
    await full.until(() => full.closed !== null, "the socket past the room's cap to be closed");
    expect(full.closed!.code).toBe(4503);
    expect(full.closed!.reason).toMatch(/full/);
    // A closed socket frees its place.
    mine.pop()!.close();
    await sleep(100);
    const back = await connect(docId, { token: t.owner.token });
    expect(back.closed).toBeNull();
    expect((await room(docId).diagnostics()).stats.connections).toBeLessThanOrEqual(MAX_USER_SOCKETS + 1);
    await room(docId).diagnostics({ limits: { maxSockets: null } });
    for (const p of [...mine, editor, back]) p.close();
  });

  it("limits each socket's message rate: a flood closes it with 4429, a steady editor is never refused", async () => {
    expect(MESSAGES_PER_SECOND).toBe(50);
    expect(MESSAGE_BURST).toBe(200);
    const docId = await newDoc();
    const steady = await connect(docId, { token: t.owner.token });
    steady.write([para("p1", ">")]);
    // Under the burst, a pause to refill, and again: all 250 applied (more than one burst, so the bucket refilled).
    for (let i = 0; i < 150; i++) steady.text(0).insert(steady.text(0).length, "s");
    await sleep(1500);
    for (let i = 0; i < 100; i++) steady.text(0).insert(steady.text(0).length, "t");
    const expected = ">" + "s".repeat(150) + "t".repeat(100);
    for (let i = 0; i < 100 && !JSON.stringify(await blocksOf(docId)).includes(expected); i++) await sleep(50);
    expect(JSON.stringify(await blocksOf(docId))).toContain(expected);
    expect(steady.closed).toBeNull();
    // A flood: 1 000 updates at once.
    const flood = await connect(docId, { token: t.editor.token });
    await flood.until(() => flood.blocks().length === 1, "the flooding peer to sync");
    const floodStarted = Date.now();
    for (let i = 0; i < 1000; i++) flood.text(0).insert(0, "f");
    await flood.until(() => flood.closed !== null, "the flooding socket to be closed");
    const floodSeconds = (Date.now() - floodStarted) / 1000;
    expect(flood.closed!.code).toBe(4429);
    expect(flood.closed!.reason).toMatch(/rate/);
    // Whatever it sent within its budget was applied; the rest never reached the room or the others.
    const held = JSON.stringify(await blocksOf(docId)).match(/"text":"(f*)/)![1]!.length;
    expect(held).toBeGreaterThan(0);
    // The burst, plus what the bucket refilled while the flood lasted (a loaded machine stretches it).
    expect(held).toBeLessThanOrEqual(MESSAGE_BURST + Math.ceil(MESSAGES_PER_SECOND * (floodSeconds + 1)));
    expect(held).toBeLessThan(1000);
    expect(steady.closed).toBeNull();
    steady.close();
  });

  it(`refuses an update that nests blocks deeper than ${MAX_BLOCK_DEPTH} (4422), in one update or added under existing blocks, leaving nothing behind`, async () => {
    expect(MAX_BLOCK_DEPTH).toBe(32);
    const docId = await newDoc();
    const a = await connect(docId, { token: t.editor.token });
    a.write([nested(MAX_BLOCK_DEPTH + 1, "too deep")]);
    await a.until(() => a.closed !== null, "the too-deep update to be refused");
    expect(a.closed!.code).toBe(4422);
    expect(a.closed!.reason).toMatch(/32/);
    expect(await blocksOf(docId)).toEqual([]);
    // 32 levels are fine.
    const b = await connect(docId, { token: t.editor.token });
    expect(b.blocks()).toEqual([]);
    b.write([nested(MAX_BLOCK_DEPTH, "deepest allowed")]);
    const watcher = await connect(docId, { token: t.owner.token });
    await watcher.until(() => JSON.stringify(watcher.blocks()).includes("deepest allowed"), "the 32-level blocks");
    // A child under the 32nd level, in a later update that only references existing blocks: refused too.
    b.doc.transact(() => {
      const group = new Y.XmlElement("blockGroup");
      const container = new Y.XmlElement("blockContainer");
      container.setAttribute("id", "x33");
      const content = new Y.XmlElement("paragraph");
      content.insert(0, [new Y.XmlText("thirty-three")]);
      container.insert(0, [content]);
      group.insert(0, [container]);
      innermostContainer(b).insert(1, [group]);
    });
    await b.until(() => b.closed !== null, "the child past the limit to be refused");
    expect(b.closed!.code).toBe(4422);
    // Raw XML nesting that is not blocks at all is bounded too.
    const c = await connect(docId, { token: t.editor.token });
    c.doc.transact(() => {
      let el = new Y.XmlElement("x");
      for (let i = 0; i < 500; i++) {
        const outer = new Y.XmlElement("x");
        outer.insert(0, [el]);
        el = outer;
      }
      c.fragment.insert(c.fragment.length, [el]);
    });
    await c.until(() => c.closed !== null, "the deep XML to be refused");
    expect(c.closed!.code).toBe(4422);
    const later = await connect(docId, { token: t.viewer.token });
    expect(JSON.stringify(later.blocks())).not.toContain("thirty-three");
    expect(later.fragment.length).toBe(1);
    expect(later.blocks()).toEqual([nested(MAX_BLOCK_DEPTH, "deepest allowed")]);
    expect(JSON.stringify(watcher.blocks())).not.toContain("thirty-three");
    expect((await room(docId).diagnostics({ reload: true })).reload!.matches).toBe(true);
    watcher.close();
    later.close();
  });
});

/** A second top-level block group holding one paragraph with `text` (one more update on top of the first). */
function writeBlocksAfter(fragment: Y.XmlFragment, text: string) {
  const group = new Y.XmlElement("blockGroup");
  const container = new Y.XmlElement("blockContainer");
  container.setAttribute("id", "second");
  const content = new Y.XmlElement("paragraph");
  content.insert(0, [new Y.XmlText(text)]);
  container.insert(0, [content]);
  group.insert(0, [container]);
  fragment.insert(fragment.length, [group]);
}
