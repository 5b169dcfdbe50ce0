/** connectCollaboration: GET /document/{documentId}/collab (src/routes/collab/connect.ts) — its happy path, errors and request-path checks. */
import { beforeAll, describe, expect, it } from "vitest";
import * as encoding from "lib0/encoding";
import * as decoding from "lib0/decoding";
import { ok, seedTenant, type Tenant, call, expectError, registerUser } from "../../support/harness";
import { connect, openSocket, para, Peer } from "../../support/collab-peer";
import { MAX_AWARENESS_CLIENTS, MAX_AWARENESS_STATE_BYTES } from "../../../src/durable/room/protocol";
import { evictDurableObject, runInDurableObject } from "cloudflare:test";
import type { DocumentRoom } from "../../../src/durable/DocumentRoom";
import { MAX_VALUE_BYTES, COMPACT_EVERY } from "../../../src/durable/room/persistence";
import {
  MAX_ROOM_SOCKETS,
  MAX_USER_SOCKETS,
  MESSAGE_BURST,
  MESSAGES_PER_SECOND,
} from "../../../src/durable/room/limits";
import { MAX_BLOCK_DEPTH } from "../../../src/lib/blockDepth";
import type { Block } from "../../../src/services/collab/blocks";
import * as Y from "yjs";
import { EVERY_BLOCK } from "../../support/collab-fixtures";
import { docxBytes, DOCX_TYPE } from "../../support/content-fixtures";
import * as syncProtocol from "y-protocols/sync";
import { room, blocksOf, statsOf, newDocIn, until } from "../../support/collabRoom";

// One tenant for the file: its cases make their own records in it.
let t: Tenant;
beforeAll(async () => {
  t = await seedTenant();
});

/**
 * Presence (awareness) in the collaborative room (docs/api-guide.md, "Collaborative editing"): each connection owns
 * the client ids it introduced (at most 4, each state at most 8 KB), an entry for another connection's client is
 * dropped, a refused message leaves nothing behind, and a connection's entries leave with it.
 */
describe("awareness", () => {
  async function newDoc() {
    const doc = await ok("POST", "/document", {
      token: t.owner.token,
      body: { projectId: t.projectId, parentId: t.folderId, name: "Presence", type: "DOCUMENT" },
    });
    return doc.data._id as string;
  }

  type Entry = { id: number; clock: number; state: unknown };

  /** A y-protocols awareness message; `truncate` cuts that many bytes off the end of the inner update. */
  function awarenessMessage(entries: Entry[], truncate = 0): Uint8Array {
    const inner = encoding.createEncoder();
    encoding.writeVarUint(inner, entries.length);
    for (const { id, clock, state } of entries) {
      encoding.writeVarUint(inner, id);
      encoding.writeVarUint(inner, clock);
      encoding.writeVarString(inner, JSON.stringify(state));
    }
    const bytes = encoding.toUint8Array(inner);
    const e = encoding.createEncoder();
    encoding.writeVarUint(e, 1);
    encoding.writeVarUint8Array(e, bytes.subarray(0, bytes.length - truncate));
    return encoding.toUint8Array(e);
  }

  /** Every entry a peer has been sent, the latest per client id (null state: the client left). */
  function presenceSeen(peer: Peer): Map<number, { clock: number; state: unknown }> {
    const seen = new Map<number, { clock: number; state: unknown }>();
    for (const update of peer.awareness) {
      const d = decoding.createDecoder(update);
      const n = decoding.readVarUint(d);
      for (let i = 0; i < n; i++) {
        const id = decoding.readVarUint(d);
        const clock = decoding.readVarUint(d);
        const state = JSON.parse(decoding.readVarString(d)) as unknown;
        seen.set(id, { clock, state });
      }
    }
    return seen;
  }

  /** The presence a new joiner is greeted with (ids with a live state). */
  async function greeting(docId: string) {
    const joiner = await connect(docId, { token: t.editor.token });
    const live = [...presenceSeen(joiner)].filter(([, v]) => v.state !== null);
    const bytes = joiner.awareness.reduce((n, u) => n + u.byteLength, 0);
    joiner.close();
    return {
      ids: live.map(([id]) => id).sort((a, b) => a - b),
      states: new Map(live.map(([id, v]) => [id, v.state])),
      bytes,
    };
  }

  describe("awareness", () => {
    it("a message refused part-way (second entry truncated) leaves nothing of its first entry behind", async () => {
      const docId = await newDoc();
      const owner = await connect(docId, { token: t.owner.token });
      owner.send(awarenessMessage([{ id: 1001, clock: 1, state: { user: { name: "Owner" } } }]));
      const viewer = await connect(docId, { token: t.viewer.token });
      await viewer.until(() => presenceSeen(viewer).has(1001), "the owner's presence");
      // As reported: about 900 KB of state in the first entry, the second truncated; and smaller ones within the limits.
      for (let i = 0; i < 4; i++) {
        const planter = await connect(docId, { token: t.viewer.token });
        const pad = i === 0 ? 900_000 : 4000;
        planter.send(
          awarenessMessage(
            [
              { id: 5000 + i, clock: 1, state: { pad: "x".repeat(pad) } },
              { id: 6000 + i, clock: 1, state: { pad: "y" } },
            ],
            3,
          ),
        );
        await planter.until(() => planter.closed !== null, "the planter to be closed");
        expect(planter.closed!.code).toBe(1003);
      }
      // Neither the viewer watching nor a new joiner is sent any planted entry.
      expect([...presenceSeen(viewer).keys()].filter((id) => id >= 5000)).toEqual([]);
      const g = await greeting(docId);
      expect(g.ids).toEqual([1001]);
      expect(g.bytes).toBeLessThan(200);
      owner.close();
      viewer.close();
    });

    it("refuses a state over 8 KB without applying any entry of the message, and keeps at most 4 ids per connection", async () => {
      const docId = await newDoc();
      const big = await connect(docId, { token: t.viewer.token });
      big.send(
        awarenessMessage([
          { id: 7001, clock: 1, state: { name: "fine" } },
          { id: 7002, clock: 1, state: { pad: "z".repeat(MAX_AWARENESS_STATE_BYTES) } },
        ]),
      );
      await big.until(() => big.closed !== null, "the oversized presence to be refused");
      expect(big.closed!.code).toBe(1009);
      expect((await greeting(docId)).ids).toEqual([]);

      const many = await connect(docId, { token: t.viewer.token });
      const ids = Array.from({ length: 20 }, (_, i) => 8000 + i);
      many.send(
        awarenessMessage(
          ids.map((id) => ({ id, clock: 1, state: { pad: "w".repeat(MAX_AWARENESS_STATE_BYTES - 100) } })),
        ),
      );
      // A second message cannot add more ids either.
      many.send(awarenessMessage([{ id: 9000, clock: 1, state: { name: "extra" } }]));
      many.send(awarenessMessage([{ id: 8000, clock: 2, state: { name: "updated" } }]));
      let g = await greeting(docId);
      for (let i = 0; i < 20 && !(g.states.get(8000) as { name?: string } | undefined)?.name; i++)
        g = await greeting(docId);
      expect(g.ids).toEqual(ids.slice(0, MAX_AWARENESS_CLIENTS));
      expect(g.states.get(8000)).toEqual({ name: "updated" });
      expect(g.bytes).toBeLessThan(MAX_AWARENESS_CLIENTS * MAX_AWARENESS_STATE_BYTES + 1024);
      many.close();
    });

    it("drops an entry for another connection's client: a viewer cannot overwrite the owner's cursor", async () => {
      const docId = await newDoc();
      const owner = await connect(docId, { token: t.owner.token });
      owner.send(awarenessMessage([{ id: 4242, clock: 3, state: { user: { name: "Owner" } } }]));
      const viewer = await connect(docId, { token: t.viewer.token });
      await viewer.until(() => presenceSeen(viewer).has(4242), "the owner's presence");
      viewer.send(
        awarenessMessage([
          { id: 4242, clock: 99, state: { user: { name: "Owner (forged)" } } },
          { id: 4343, clock: 1, state: { user: { name: "Viewer" } } },
        ]),
      );
      await owner.until(() => presenceSeen(owner).has(4343), "the viewer's own presence");
      expect(presenceSeen(owner).get(4242)).toBeUndefined();
      const g = await greeting(docId);
      expect(g.ids).toEqual([4242, 4343]);
      expect(g.states.get(4242)).toEqual({ user: { name: "Owner" } });
      // Removing another's entry (state null) is dropped too.
      viewer.send(awarenessMessage([{ id: 4242, clock: 100, state: null }]));
      owner.send(awarenessMessage([{ id: 4242, clock: 4, state: { user: { name: "Owner", cursor: 1 } } }]));
      await viewer.until(() => (presenceSeen(viewer).get(4242)?.clock ?? 0) === 4, "the owner's own update");
      expect((await greeting(docId)).states.get(4242)).toEqual({ user: { name: "Owner", cursor: 1 } });
      owner.close();
      viewer.close();
    });

    it("removes a connection's entries when it closes, and then its ids are free again", async () => {
      const docId = await newDoc();
      const watcher = await connect(docId, { token: t.owner.token });
      const a = await connect(docId, { token: t.viewer.token });
      a.send(awarenessMessage([{ id: 3131, clock: 1, state: { name: "A" } }]));
      await watcher.until(() => presenceSeen(watcher).get(3131)?.state !== undefined, "A's presence");
      a.close();
      await watcher.until(() => presenceSeen(watcher).get(3131)?.state === null, "A's presence to leave");
      expect((await greeting(docId)).ids).toEqual([]);
      const b = await connect(docId, { token: t.viewer.token });
      b.send(awarenessMessage([{ id: 3131, clock: 1, state: { name: "B" } }]));
      await watcher.until(
        () => (presenceSeen(watcher).get(3131)?.state as { name?: string } | null)?.name === "B",
        "B's presence under the freed id",
      );
      watcher.close();
      b.close();
    });
  });
});

/**
 * The room's limits (docs/api-guide.md › Automations, published portals, collaborative editing; security findings 7
 * and 10 of issue 34): large updates stored in chunks under the 2 MB value limit before anyone sees them, the 32 MiB
 * document limit counted on what the room holds, the socket caps, the per-socket message rate, and block nesting.
 */
describe("limits", () => {
  const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

  const newDoc = (name = "Limits doc") => newDocIn(t, name);

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
      const group = el
        .toArray()
        .find((c): c is Y.XmlElement => c instanceof Y.XmlElement && c.nodeName === "blockGroup");
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
});

/**
 * The collaborative room (docs/api-guide.md › Automations, published portals, collaborative editing) with real Yjs clients over the pool's WebSockets: convergence, viewers refused,
 * access removal, eviction and reload, compaction, the state cap, malformed messages, tickets, and one document
 * everywhere (content GET, E5, PUT content and snapshot restore through the room).
 */
describe("room", () => {
  const newDoc = (name = "Collab doc") => newDocIn(t, name);

  const json = (v: unknown) => JSON.parse(JSON.stringify(v));

  describe("collaborative room", () => {
    it("two editors converge, and the room holds the same document", async () => {
      const docId = await newDoc();
      const a = await connect(docId, { token: t.owner.token });
      const b = await connect(docId, { token: t.editor.token });
      a.write([para("p1", "hello"), para("p2", "second")]);
      await b.until(() => b.blocks().length === 2, "b to receive a's blocks");
      // Concurrent edits on both sides.
      a.text(0).insert(5, " world");
      b.text(1).insert(0, "the ", { bold: {} });
      const expected = [
        para("p1", "hello world"),
        {
          ...para("p2", ""),
          content: [
            { type: "text", text: "the ", styles: { bold: true } },
            { type: "text", text: "second", styles: {} },
          ],
        },
      ];
      await a.until(() => JSON.stringify(a.blocks()) === JSON.stringify(expected), "a to converge");
      await b.until(() => JSON.stringify(b.blocks()) === JSON.stringify(expected), "b to converge");
      expect(json(await blocksOf(docId))).toEqual(expected);
      a.close();
      b.close();
    });

    it("refuses a viewer's update with a message to them, applies nothing, and still sends them updates", async () => {
      const docId = await newDoc();
      const editor = await connect(docId, { token: t.editor.token });
      const viewer = await connect(docId, { token: t.viewer.token });
      editor.write([para("p1", "from the editor")]);
      await viewer.until(() => viewer.blocks().length === 1, "viewer to receive the editor's block");
      viewer.text(0).insert(0, "VANDAL ");
      await viewer.until(() => viewer.denied.length > 0, "a permission-denied message");
      expect(viewer.denied[0]).toMatch(/read-only/);
      expect(viewer.closed).toBeNull();
      // The editor keeps writing; the viewer still receives it, and neither room nor editor ever holds the viewer's text.
      editor.text(0).insert(0, ">> ");
      await viewer.until(
        () => viewer.blocks()[0]!.content!.toString().length > 0 && JSON.stringify(viewer.blocks()).includes(">> "),
        "viewer to receive the next edit",
      );
      expect(JSON.stringify(await blocksOf(docId))).not.toContain("VANDAL");
      expect(JSON.stringify(editor.blocks())).not.toContain("VANDAL");
      expect(json(await blocksOf(docId))).toEqual([para("p1", ">> from the editor")]);
      editor.close();
      viewer.close();
    });

    it("drops a collaborator whose access was removed, and re-checks a changed role", async () => {
      const t2 = await seedTenant();
      const editorSocket = await connect(t2.docId, { token: t2.editor.token });
      const viewerSocket = await connect(t2.docId, { token: t2.viewer.token });
      // The viewer becomes editor: their next edit is applied without reconnecting.
      await ok("POST", `/workspace/${t2.workspaceId}/collaborator`, {
        token: t2.owner.token,
        body: { email: t2.viewer.email, role: "editor" },
      });
      viewerSocket.write([para("v1", "now an editor")]);
      await editorSocket.until(() => editorSocket.blocks().length === 1, "the promoted viewer's edit to arrive");
      expect(viewerSocket.denied).toEqual([]);
      // The editor is removed from the workspace: their socket is closed at once.
      await ok("DELETE", `/workspace/${t2.workspaceId}/collaborator/${t2.editor.id}`, { token: t2.owner.token });
      await editorSocket.until(() => editorSocket.closed !== null, "the removed editor to be disconnected");
      expect(editorSocket.closed!.code).toBe(4403);
      expect(viewerSocket.closed).toBeNull();
      // And they cannot come back.
      const again = await openSocket(t2.docId, { token: t2.editor.token });
      expect(again.status).toBe(404);
      viewerSocket.close();
    });

    it("disconnects everyone from a document when it, or a folder above it, is deleted; restored, it opens again", async () => {
      const folder = await ok("POST", "/document", {
        token: t.owner.token,
        body: { projectId: t.projectId, name: "Doomed folder", type: "FOLDER" },
      });
      const inside = await ok("POST", "/document", {
        token: t.owner.token,
        body: { projectId: t.projectId, parentId: folder.data._id, name: "Inside", type: "DOCUMENT" },
      });
      const docId = inside.data._id as string;
      const owner = await connect(docId, { token: t.owner.token });
      const editor = await connect(docId, { token: t.editor.token });
      owner.write([para("d1", "before the delete")]);
      await editor.until(() => editor.blocks().length === 1, "the editor to receive the block");
      const other = await connect(t.docId, { token: t.editor.token });
      await ok("DELETE", `/document/${folder.data._id}`, { token: t.owner.token });
      await owner.until(() => owner.closed !== null, "the owner to be disconnected");
      await editor.until(() => editor.closed !== null, "the editor to be disconnected");
      expect(owner.closed!.code).toBe(4403);
      expect(editor.closed!.code).toBe(4403);
      // A room outside the deleted subtree is untouched.
      expect(other.closed).toBeNull();
      expect((await openSocket(docId, { token: t.owner.token })).status).toBe(404);
      await ok("POST", `/document/${folder.data._id}/restore`, { token: t.owner.token });
      const back = await connect(docId, { token: t.editor.token });
      await back.until(
        () => JSON.stringify(back.blocks()).includes("before the delete"),
        "the restored document's state",
      );
      back.close();
      other.close();
    });

    it("drops a guest whose access came from a folder the document is moved out of", async () => {
      const folder = await ok("POST", "/document", {
        token: t.owner.token,
        body: { projectId: t.projectId, name: "Shared folder", type: "FOLDER" },
      });
      const guest = await registerUser("Folder guest");
      await ok("POST", "/document/invite-user", {
        token: t.owner.token,
        body: { email: guest.email, documentId: folder.data._id, role: "editor" },
      });
      // Created after the invitation: the guest reads it only as a collaborator of the folder above it.
      const inside = await ok("POST", "/document", {
        token: t.owner.token,
        body: { projectId: t.projectId, parentId: folder.data._id, name: "Moved", type: "DOCUMENT" },
      });
      const docId = inside.data._id as string;
      const owner = await connect(docId, { token: t.owner.token });
      const g = await connect(docId, { token: guest.token });
      await ok("PATCH", `/document/${docId}`, { token: t.owner.token, body: { parentId: null } });
      await g.until(() => g.closed !== null, "the guest to be disconnected after the move");
      expect(g.closed!.code).toBe(4403);
      expect(owner.closed).toBeNull();
      expect((await openSocket(docId, { token: guest.token })).status).toBe(404);
      owner.close();
    });

    it("lets a document viewer edit at once when an invitation raises them to editor", async () => {
      const docId = await newDoc();
      const guest = await registerUser("Guest");
      await ok("POST", "/document/invite-user", {
        token: t.owner.token,
        body: { email: guest.email, documentId: docId, role: "viewer" },
      });
      const owner = await connect(docId, { token: t.owner.token });
      const g = await connect(docId, { token: guest.token });
      owner.write([para("p1", "shared")]);
      await g.until(() => g.blocks().length === 1, "the guest to receive the block");
      await ok("POST", "/document/invite-user", {
        token: t.owner.token,
        body: { email: guest.email, documentId: docId, role: "editor" },
      });
      g.text(0).insert(g.text(0).length, " +guest");
      await owner.until(
        () => JSON.stringify(owner.blocks()).includes("shared +guest"),
        "the promoted guest's edit to arrive",
      );
      expect(g.denied).toEqual([]);
      owner.close();
      g.close();
    });

    it("reloads exactly what was acknowledged after the room is evicted", async () => {
      const docId = await newDoc();
      const a = await connect(docId, { token: t.owner.token });
      const b = await connect(docId, { token: t.editor.token });
      a.write([para("p1", "start:")]);
      for (let i = 0; i < 50; i++) a.text(0).insert(a.text(0).length, `${i},`);
      await b.until(() => JSON.stringify(b.blocks()) === JSON.stringify(a.blocks()), "b to receive every keystroke");
      const expected = json(a.blocks());
      const stub = room(docId);
      const before = await statsOf(stub);
      expect(before.updateCount).toBeGreaterThanOrEqual(51);
      await evictDurableObject(stub);
      // A fresh instance loaded from storage only.
      expect(json(await blocksOf(docId))).toEqual(expected);
      // Hibernated sockets survive the eviction and keep working.
      b.text(0).insert(0, "after:");
      await a.until(() => JSON.stringify(a.blocks()).includes("after:"), "a to receive b's edit after the eviction");
      await evictDurableObject(stub, { webSockets: "close" });
      const c = await connect(docId, { token: t.owner.token });
      expect(json(c.blocks())).toEqual(json(a.blocks()));
      // Storage holds the state and updates, nothing else.
      const rows = await runInDurableObject(stub, (_instance: DocumentRoom, state) => ({
        updates: state.storage.sql.exec<{ n: number }>("SELECT COUNT(*) AS n FROM updates").one().n,
        chunks: state.storage.sql.exec<{ n: number }>("SELECT COUNT(*) AS n FROM state_chunks").one().n,
      }));
      expect(rows.updates + rows.chunks).toBeGreaterThan(0);
      a.close();
      b.close();
      c.close();
    });

    it("compacts every N updates (2000 by default) and when the last socket leaves, into chunks that reload to the same state", async () => {
      expect(COMPACT_EVERY).toBe(2000);
      const docId = await newDoc();
      const stub = room(docId);
      const a = await connect(docId, { token: t.owner.token });
      // The interval is lowered so the test sends 125 updates instead of 2 100 (and stays within a socket's message
      // burst); the code path is the same.
      await stub.diagnostics({ limits: { compactEvery: 50 } });
      a.write([para("p1", "start:")]);
      for (let i = 0; i < 125; i++) a.text(0).insert(a.text(0).length, "x");
      await until(
        () => blocksOf(docId),
        (blocks) => JSON.stringify(blocks).includes("x".repeat(125)),
        "all 125 keystrokes to arrive",
        20_000,
      );
      const mid = await statsOf(stub);
      expect(mid.stateChunks).toBeGreaterThanOrEqual(1);
      expect(mid.updateCount).toBeLessThan(50);
      a.close();
      await until(
        () => statsOf(stub),
        (s) => s.updateCount === 0 && s.connections === 0,
        "compaction after the last socket left",
      );
      const reload = (await stub.diagnostics({ reload: true })).reload!;
      expect(reload.matches).toBe(true);
      await evictDurableObject(stub);
      expect(JSON.stringify(await blocksOf(docId))).toContain("start:" + "x".repeat(125));
      await stub.diagnostics({ limits: { compactEvery: null } });
    });

    it("stores a large state in chunks under 2 MB that reload to the same document", async () => {
      const docId = await newDoc();
      const stub = room(docId);
      const a = await connect(docId, { token: t.owner.token });
      // ~3 MB of incompressible text in one update, then compaction.
      const big = Array.from({ length: (3 * 1024 * 1024) / 16 }, () =>
        Math.random().toString(36).slice(2, 18).padEnd(16, "z"),
      ).join("");
      a.write([para("big", big)]);
      await until(
        () => statsOf(stub),
        (s) => s.storedBytes > 3 * 1024 * 1024,
        "the large update to be stored",
        20_000,
      );
      const after = (await stub.diagnostics({ compact: true })).stats;
      expect(after.stateChunks).toBeGreaterThanOrEqual(2);
      const sizes = await runInDurableObject(stub, (_i: DocumentRoom, state) =>
        state.storage.sql
          .exec<{ size: number }>("SELECT length(data) AS size FROM state_chunks")
          .toArray()
          .map((r) => r.size),
      );
      expect(Math.max(...sizes)).toBeLessThan(2 * 1000 * 1000);
      await evictDurableObject(stub, { webSockets: "close" });
      expect((await blocksOf(docId))[0]!.content).toEqual([{ type: "text", text: big, styles: {} }]);
    });

    it("closes only the socket that sent an unparseable message, with 1003", async () => {
      const docId = await newDoc();
      const good = await connect(docId, { token: t.owner.token });
      const bad = await connect(docId, { token: t.editor.token });
      bad.send(new Uint8Array([0, 2, 0xff, 0xff, 0xff, 0xff, 0x0f, 1, 2, 3]));
      await bad.until(() => bad.closed !== null, "the bad socket to close");
      expect(bad.closed!.code).toBe(1003);
      const text = await connect(docId, { token: t.editor.token });
      text.ws.send("not binary");
      await text.until(() => text.closed !== null, "the text-frame socket to close");
      expect(text.closed!.code).toBe(1003);
      // The room and the other socket are unaffected.
      good.write([para("p1", "still fine")]);
      const later = await connect(docId, { token: t.editor.token });
      expect(json(later.blocks())).toEqual([para("p1", "still fine")]);
      expect(good.closed).toBeNull();
      good.close();
      later.close();
    });

    it("closes with 1003 a socket whose update decodes but cannot be applied; the room and the others carry on", async () => {
      const docId = await newDoc();
      const good = await connect(docId, { token: t.owner.token });
      const bad = await connect(docId, { token: t.editor.token });
      // A Yjs update that Y.decodeUpdate reads but Y.applyUpdate throws on (found by mutating a valid update).
      const update = Uint8Array.from(
        "0106010007010e646f63756d656e742d73746f7265030970617261677261706807000164060600010104626f6c64027b7d8401020b68656c6c6f20776f726c6486010d04626f6c64046e756c6c2801016d016b017d0100"
          .match(/../g)!
          .map((h) => parseInt(h, 16)),
      );
      const e = encoding.createEncoder();
      encoding.writeVarUint(e, 0);
      syncProtocol.writeUpdate(e, update);
      bad.send(encoding.toUint8Array(e));
      await bad.until(() => bad.closed !== null, "the socket to be closed");
      expect(bad.closed!.code).toBe(1003);
      good.write([para("p1", "still editing")]);
      const later = await connect(docId, { token: t.editor.token });
      expect(json(later.blocks())).toEqual([para("p1", "still editing")]);
      expect(good.closed).toBeNull();
      good.close();
      later.close();
    });

    it("refuses an update that would take the document past its size limit, with a clear reason", async () => {
      const docId = await newDoc();
      const a = await connect(docId, { token: t.owner.token });
      a.write([para("p1", "small")]);
      const stub = room(docId);
      await until(
        () => blocksOf(docId),
        (b) => b.length === 1,
        "the first block",
      );
      await stub.diagnostics({ limits: { maxStateBytes: 4096 } });
      a.text(0).insert(0, "y".repeat(10_000));
      await a.until(() => a.closed !== null, "the oversized update to be refused");
      expect(a.closed!.code).toBe(1009);
      expect(a.closed!.reason).toMatch(/exceed/);
      expect(json(await blocksOf(docId))).toEqual([para("p1", "small")]);
      await stub.diagnostics({ limits: { maxStateBytes: null } });
    });

    it("starts from the document's content and writes edits back, so content GET and E5 see them within 3 s", async () => {
      const docId = await newDoc();
      await ok("PUT", `/document/${docId}/content`, { token: t.owner.token, body: { blocks: EVERY_BLOCK } });
      const a = await connect(docId, { token: t.editor.token });
      expect(json(a.blocks())).toEqual(json(EVERY_BLOCK));
      const started = Date.now();
      a.text(1).insert(5, " edited live");
      const content = await until(
        () => ok("GET", `/document/${docId}/content`, { token: t.owner.token }),
        (body) => JSON.stringify(body.data.blocks).includes("Title edited live"),
        "content GET to show the edit",
        3000,
      );
      expect(Date.now() - started).toBeLessThanOrEqual(3000);
      expect(content.data.blocks[1].content[0].text).toBe("Title edited live");
      const e5 = await ok("POST", "/export/get-documents-data", {
        token: t.owner.token,
        body: { documentIds: [docId], projectId: t.projectId },
      });
      expect(JSON.stringify(e5)).toContain("Title edited live");
      a.close();
    });

    it("applies PUT content to a live room as one transaction connected editors receive", async () => {
      const docId = await newDoc();
      const a = await connect(docId, { token: t.editor.token });
      a.write([para("p1", "typed live")]);
      await until(
        () => blocksOf(docId),
        (b) => b.length === 1,
        "the live block",
      );
      const current = await ok("GET", `/document/${docId}/content`, { token: t.owner.token });
      // A stale baseVersion is 409 and changes nothing (the live edits were flushed first, so the version moved).
      const stale = await call("PUT", `/document/${docId}/content`, {
        token: t.owner.token,
        body: { blocks: [para("x", "stale")], baseVersion: 0 },
      });
      expectError(stale, 409, "ConflictError");
      void current;
      const replaced = [para("r1", "replaced by PUT"), para("r2", "second")];
      const put = await ok("PUT", `/document/${docId}/content`, { token: t.owner.token, body: { blocks: replaced } });
      expect(put.data.version).toBeGreaterThan(0);
      await a.until(() => JSON.stringify(a.blocks()) === JSON.stringify(replaced), "the editor to receive the PUT");
      const read = await ok("GET", `/document/${docId}/content`, { token: t.owner.token });
      expect(read.data).toMatchObject({ version: put.data.version, blocks: replaced });
      a.close();
    });

    it("restores a snapshot into the live room, and keeps the live edits in 'Before restore'", async () => {
      const docId = await newDoc();
      await ok("PUT", `/document/${docId}/content`, {
        token: t.owner.token,
        body: { blocks: [para("s1", "snapshotted")] },
      });
      const snap = await ok("POST", "/snapshot", { token: t.owner.token, body: { documentId: docId, name: "v1" } });
      const a = await connect(docId, { token: t.editor.token });
      a.text(0).insert(0, "changed: ");
      await until(
        () => blocksOf(docId),
        (b) => JSON.stringify(b).includes("changed: "),
        "the live edit",
      );
      const restored = await ok("POST", `/snapshot/${snap.data._id}/restore`, { token: t.owner.token });
      await a.until(
        () => JSON.stringify(a.blocks()) === JSON.stringify([para("s1", "snapshotted")]),
        "the editor to receive the restore",
      );
      const before = await ok("GET", `/snapshot/${restored.data.beforeRestoreSnapshotId}`, { token: t.owner.token });
      expect(before.data.blocks).toEqual([para("s1", "changed: snapshotted")]);
      const read = await ok("GET", `/document/${docId}/content`, { token: t.owner.token });
      expect(read.data.blocks).toEqual([para("s1", "snapshotted")]);
      a.close();
    });

    it("answers a plain GET with 400 and the standard error body, and hides documents the caller cannot read", async () => {
      const docId = await newDoc();
      expectError(await call("GET", `/document/${docId}/collab`, { token: t.owner.token }), 400, "ValidationError");
      expect((await openSocket(docId, { token: t.outsider.token })).status).toBe(404);
      expect((await openSocket("no-such-document", { token: t.owner.token })).status).toBe(404);
    });
  });

  /** A DOCX document (a fresh fixture DOCX) in the tenant's folder, owned by its owner. */
  async function newDocxDocument(name: string): Promise<string> {
    const created = await ok("POST", "/document/docx", {
      token: t.owner.token,
      raw: docxBytes(),
      query: { projectId: t.projectId, name, parentId: t.folderId },
      headers: { "content-type": DOCX_TYPE },
    });
    return created.data._id as string;
  }

  describe("E18 and the room", () => {
    it("a DOCX document's room starts empty until seeded; after mark-seeded later opens load the room's state; a new DOCX version starts over", async () => {
      const docId = await newDocxDocument("Seeded");
      const a = await connect(docId, { token: t.owner.token });
      expect(a.blocks()).toEqual([]);
      // The client converts the DOCX and seeds the room, then marks it seeded.
      a.write([para("d1", "converted from DOCX")]);
      await until(
        () => blocksOf(docId),
        (b) => b.length === 1,
        "the seed to arrive",
      );
      await ok("POST", `/document/docx/${docId}/mark-seeded`, { token: t.owner.token });
      a.close();
      await until(
        () => statsOf(room(docId)),
        (s) => s.connections === 0,
        "the room to empty",
      );
      await evictDurableObject(room(docId));
      const b = await connect(docId, { token: t.editor.token });
      expect(json(b.blocks())).toEqual([para("d1", "converted from DOCX")]);
      b.close();
      await until(
        () => statsOf(room(docId)),
        (s) => s.connections === 0,
        "the room to empty again",
      );
      // A new DOCX version clears seededAt: the next open starts empty, to be seeded from the new file.
      await ok("PUT", `/document/docx/${docId}`, {
        token: t.owner.token,
        raw: docxBytes(),
        headers: { "content-type": DOCX_TYPE },
      });
      const c = await connect(docId, { token: t.owner.token });
      expect(c.blocks()).toEqual([]);
      c.close();
    });

    it("a new DOCX version starts over even when no one opened the room between mark-seeded and the new version", async () => {
      const docId = await newDocxDocument("Seeded once");
      const a = await connect(docId, { token: t.owner.token });
      a.write([para("d1", "converted from the first DOCX")]);
      await until(
        () => blocksOf(docId),
        (b) => b.length === 1,
        "the seed to arrive",
      );
      // Marked while the seeding client is still connected (what a client does right after seeding).
      await ok("POST", `/document/docx/${docId}/mark-seeded`, { token: t.owner.token });
      a.close();
      await until(
        () => statsOf(room(docId)),
        (s) => s.connections === 0,
        "the room to empty",
      );
      await ok("PUT", `/document/docx/${docId}`, {
        token: t.owner.token,
        raw: docxBytes(),
        headers: { "content-type": DOCX_TYPE },
      });
      const b = await connect(docId, { token: t.owner.token });
      expect(b.blocks()).toEqual([]);
      b.close();
    });
  });
});
